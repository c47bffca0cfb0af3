import { Global, Module, type DynamicModule } from '@nestjs/common';
import { CommonModule } from './common/common.module.js';
import type { AppConfig } from './common/config/app-config.js';
import { DatabaseModule } from './database/database.module.js';
import { AdminModule } from './modules/admin/admin.module.js';
import { AudienceModule } from './modules/audience/audience.module.js';
import { AuthModule } from './modules/auth/auth.module.js';
import { CustomerModule } from './modules/customer/customer.module.js';
import { DestinationModule } from './modules/destination/destination.module.js';
import { DiagnosticsModule } from './modules/diagnostics/diagnostics.module.js';
import { EventsModule } from './modules/events/events.module.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';
import { MailModule } from './modules/mail/mail.module.js';
import { MarketingModule } from './modules/marketing/marketing.module.js';
import { PrivacyModule } from './modules/privacy/privacy.module.js';
import { ValidationModule } from './modules/validation/validation.module.js';
import { TrackingModule } from './modules/tracking/tracking.module.js';
import { CUSTOMER_TRACES, type CustomerTraces } from './modules/customer/customer-traces.js';
import { CUSTOMER_EVENT_TRACES } from './modules/tracking/customer-event-traces.js';
import { Audience, CampaignAudience, SubAudience } from './modules/audience/entities/audience.entity.js';
import { Customer } from './modules/customer/entities/customer.entity.js';
import { Webhook } from './modules/webhooks/entities/webhook.entity.js';
import { COUNTED_TABLES, type CountedTable } from './common/usage/record-caps.js';
import { CampaignDestination } from './modules/destination/entities/destination.entity.js';
import { Campaign } from './modules/marketing/entities/campaign.entity.js';
import { ValidationRule } from './modules/validation/entities/validation-rule.entity.js';
import { SURE_INPUTS, type SureInput } from './common/http/input-pipe.js';
import { BackgroundWorkModule } from './background-work.js';
import { SideEffectsModule } from './side-effects.js';
import { PAGE_QUERY_SURE_INPUT } from './common/resources/page-query.js';
import { CUSTOMER_SURE_INPUT } from './modules/customer/bulk/customer-input.js';
import { DELETION_EFFECTS, DeletionEffects, type DeletionEffect } from './common/resources/deletion-effects.js';
import { CampaignKpi, CustomerGoal, TreatmentGroup } from './modules/marketing/entities/campaign-children.entity.js';
import { CampaignValidationRule } from './modules/marketing/entities/campaign-validation-rule.entity.js';
import { CampaignRun, CampaignSchedule } from './modules/runs/entities/campaign-run.entity.js';
import { RunsModule } from './modules/runs/runs.module.js';
import { CUSTOMER_RUN_TRACES } from './modules/runs/customer-run-traces.js';
import { ResultsModule } from './modules/results/results.module.js';
import { RESULTS_GOAL_MEASURES } from './modules/results/campaign-results.js';
import { CONVERSION_TIMELINE } from './modules/results/conversion-timeline.js';
import { TIMELINE_SOURCES } from './modules/tracking/timeline/timeline-source.js';
import { GOAL_MEASURES } from './modules/marketing/goal-measures.js';

/** What a deleted campaign takes with it, in this order: the links first (a destination link names a treatment group). */
const CAMPAIGN_CONTENTS = [
  CampaignDestination,
  CampaignValidationRule,
  CampaignAudience,
  SubAudience,
  TreatmentGroup,
  CampaignKpi,
  CustomerGoal,
];

/**
 * What deleting a record does to the records of other modules that name it (DeletionEffects).
 * Declared here, where every module is known: a module does not import the modules that build on it.
 */
const DELETION_EFFECT_LIST: DeletionEffect[] = [
  // A campaign whose run is going on is not deleted; its finished runs stay (GET /api/campaign-runs/{id}).
  {
    of: Campaign,
    entity: CampaignRun,
    column: 'active_campaign_id',
    action: 'refuse',
    message: 'A run of this campaign is going on: cancel it or let it finish first.',
  },
  ...CAMPAIGN_CONTENTS.map((entity) => ({ of: Campaign, entity, column: 'campaign_id', action: 'remove' as const })),
  { of: TreatmentGroup, entity: CampaignDestination, column: 'treatment_group_id', action: 'clear' },
  // A KPI measured on a goal is measured on nothing once the goal is gone.
  { of: CustomerGoal, entity: CampaignKpi, column: 'goal_id', action: 'clear' },
  { of: ValidationRule, entity: CampaignValidationRule, column: 'validation_rule_id', action: 'remove' },
  { of: Campaign, entity: CampaignSchedule, column: 'campaign_id', action: 'remove' },
];

/** The records a tenant's plan caps, by the name its limits give them (RecordCaps). */
const COUNTED_TABLE_LIST: CountedTable[] = [
  { entity: Customer, resource: 'customers' },
  { entity: Audience, resource: 'audiences' },
  { entity: Campaign, resource: 'campaigns' },
  { entity: Webhook, resource: 'webhooks' },
];

/** What modules above the customer module keep per customer, that an erasure deletes and a merge moves. */
const CUSTOMER_TRACE_LIST: CustomerTraces[] = [CUSTOMER_EVENT_TRACES, CUSTOMER_RUN_TRACES];

/** Body DTOs with a quick check that the validation pipe trusts when it is sure (InputPipe). */
const SURE_INPUT_LIST: SureInput[] = [CUSTOMER_SURE_INPUT, PAGE_QUERY_SURE_INPUT];

/**
 * What modules' records mean to each other, declared once here: deletion effects, the plan's
 * counted tables and what a customer's erasure or merge reaches in other modules; what results add to goals and KPIs; and the body
 * checks that the common validation pipe takes from the modules.
 */
@Global()
@Module({
  providers: [
    { provide: DELETION_EFFECTS, useValue: DELETION_EFFECT_LIST },
    DeletionEffects,
    { provide: COUNTED_TABLES, useValue: COUNTED_TABLE_LIST },
    { provide: SURE_INPUTS, useValue: SURE_INPUT_LIST },
    { provide: CUSTOMER_TRACES, useValue: CUSTOMER_TRACE_LIST },
    // Goals checked with the rule grammar, KPIs measured: from the results module, above marketing.
    { provide: GOAL_MEASURES, useValue: RESULTS_GOAL_MEASURES },
    // The timeline's kinds kept above the tracking module: conversions (campaign results).
    { provide: TIMELINE_SOURCES, useValue: [CONVERSION_TIMELINE] },
  ],
  exports: [DeletionEffects, COUNTED_TABLES, SURE_INPUTS, CUSTOMER_TRACES, GOAL_MEASURES, TIMELINE_SOURCES],
})
export class CrossModuleRulesModule {}

/** The application: every module, composed once (main.ts and the tests build it through app.factory.ts). */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CommonModule.forRoot(config),
        DatabaseModule,
        CrossModuleRulesModule,
        SideEffectsModule,
        BackgroundWorkModule,
        AuthModule,
        AdminModule,
        DiagnosticsModule,
        MailModule,
        ValidationModule,
        MarketingModule,
        AudienceModule,
        CustomerModule,
        TrackingModule,
        DestinationModule,
        EventsModule,
        WebhooksModule,
        PrivacyModule,
        RunsModule,
        ResultsModule,
      ],
    };
  }
}
