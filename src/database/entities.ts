import { ActivityLog } from '../common/activity/activity-log.entity.js';
import { Permission } from '../modules/auth/entities/permission.entity.js';
import { Role } from '../modules/auth/entities/role.entity.js';
import { Tenant } from '../modules/auth/entities/tenant.entity.js';
import { User } from '../modules/auth/entities/user.entity.js';
import { PasswordResetToken } from '../modules/auth/entities/password-reset-token.entity.js';
import { PersonalAccessToken } from '../modules/auth/entities/personal-access-token.entity.js';
import { CampaignKpi, CustomerGoal, TreatmentGroup } from '../modules/marketing/entities/campaign-children.entity.js';
import { CampaignGroup } from '../modules/marketing/entities/campaign-group.entity.js';
import { Campaign } from '../modules/marketing/entities/campaign.entity.js';
import { MarketingProgram } from '../modules/marketing/entities/marketing-program.entity.js';
import { ValidationRule } from '../modules/validation/entities/validation-rule.entity.js';
import { Audience, AudienceRule, CampaignAudience, SubAudience } from '../modules/audience/entities/audience.entity.js';
import { Customer } from '../modules/customer/entities/customer.entity.js';
import { CustomerErasure } from '../modules/customer/entities/customer-erasure.entity.js';
import { CustomerMerge } from '../modules/customer/entities/customer-merge.entity.js';
import { CustomerSuppression } from '../modules/customer/entities/customer-suppression.entity.js';
import { CustomerImport, CustomerImportError } from '../modules/customer/entities/customer-import.entity.js';
import { CampaignDestination, Destination } from '../modules/destination/entities/destination.entity.js';
import { CampaignValidationRule } from '../modules/marketing/entities/campaign-validation-rule.entity.js';
import { ColumnMetadata } from '../modules/diagnostics/entities/column-metadata.entity.js';
import { TableMetadata } from '../modules/diagnostics/entities/table-metadata.entity.js';
import { Webhook, WebhookAttempt, WebhookDelivery } from '../modules/webhooks/entities/webhook.entity.js';
import { CustomerEvent, CustomerEventName } from '../modules/tracking/entities/customer-event.entity.js';
import {
  CampaignRun,
  CampaignRunMember,
  CampaignRunRecipient,
  CampaignDeliveryState,
  CampaignSchedule,
  MessagingLimits,
} from '../modules/runs/entities/campaign-run.entity.js';

/** Every entity of the application, listed once for the data source. */
export const ENTITIES = [
  TableMetadata,
  ColumnMetadata,
  Tenant,
  User,
  Role,
  Permission,
  PersonalAccessToken,
  PasswordResetToken,
  ActivityLog,
  ValidationRule,
  MarketingProgram,
  CampaignGroup,
  Campaign,
  TreatmentGroup,
  CampaignKpi,
  CustomerGoal,
  Audience,
  AudienceRule,
  SubAudience,
  CampaignAudience,
  Customer,
  CustomerImport,
  CustomerImportError,
  CustomerMerge,
  CustomerSuppression,
  CustomerErasure,
  Destination,
  CampaignDestination,
  CampaignValidationRule,
  Webhook,
  WebhookDelivery,
  WebhookAttempt,
  CustomerEventName,
  CustomerEvent,
  CampaignRun,
  CampaignRunMember,
  CampaignRunRecipient,
  CampaignDeliveryState,
  CampaignSchedule,
  MessagingLimits,
];
