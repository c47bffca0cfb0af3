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
import { MailModule } from './modules/mail/mail.module.js';
import { MarketingModule } from './modules/marketing/marketing.module.js';
import { ValidationModule } from './modules/validation/validation.module.js';
import { CampaignAudience, SubAudience } from './modules/audience/entities/audience.entity.js';
import { CampaignDestination } from './modules/destination/entities/destination.entity.js';
import { CAMPAIGN_CONTENTS, type CampaignContents } from './modules/marketing/campaign-cascade.js';
import { CampaignKpi, CustomerGoal, TreatmentGroup } from './modules/marketing/entities/campaign-children.entity.js';
import { CampaignValidationRule } from './modules/marketing/entities/campaign-validation-rule.entity.js';

/**
 * What a deleted campaign takes with it, in this order: the links first (a destination link names a
 * treatment group), then the records that live inside the campaign. Declared here, in the composition
 * root where every module is known, because the marketing module must not import the modules that build on it.
 */
const CONTENTS: CampaignContents = [
  CampaignDestination,
  CampaignValidationRule,
  CampaignAudience,
  SubAudience,
  TreatmentGroup,
  CampaignKpi,
  CustomerGoal,
];

@Global()
@Module({
  providers: [{ provide: CAMPAIGN_CONTENTS, useValue: CONTENTS }],
  exports: [CAMPAIGN_CONTENTS],
})
export class CampaignContentsModule {}

/** The application: every module, composed once (main.ts and the tests build it through app.factory.ts). */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CommonModule.forRoot(config),
        DatabaseModule,
        CampaignContentsModule,
        AuthModule,
        AdminModule,
        DiagnosticsModule,
        MailModule,
        ValidationModule,
        MarketingModule,
        AudienceModule,
        CustomerModule,
        DestinationModule,
      ],
    };
  }
}
