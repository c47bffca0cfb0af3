import { Module, type DynamicModule } from '@nestjs/common';
import { CampaignContentsModule } from './campaign-contents.module.js';
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
