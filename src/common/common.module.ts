import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { AccessGuard } from './auth/access.guard.js';
import { AuthenticationGuard } from './auth/authentication.guard.js';
import { PasswordHasher } from './auth/password-hasher.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { Database } from './persistence/database.js';
import { BodyErrorGuard } from './http/body-parsing.js';
import { AllExceptionsFilter } from './http/exception.filter.js';
import { IdempotencyGuard } from './idempotency/idempotency.js';
import { InputPipe, SURE_INPUTS, type SureInput } from './http/input-pipe.js';
import { Metrics } from './metrics/metrics.js';
import { InsertIds } from './persistence/insert-ids.js';
import { ChangeFeed } from './events/change-feed.js';
import { EventCatalog } from './events/event-catalog.js';
import { EventRedaction } from './events/event-redaction.js';
import { EventRetention } from './events/event-retention.js';
import { EventSequencer } from './events/event-sequencer.js';
import { FeedFollower } from './events/feed-follower.js';
import { FeedReads } from './events/feed-reads.js';
import { Jobs } from './jobs/jobs.js';
import { parseAllowedTargets } from './outbound/address-policy.js';
import { OutboundHttp } from './outbound/outbound-http.js';
import { Tables } from './persistence/tables.js';
import { TenantGuard } from './tenancy/tenant.guard.js';
import { DailyQuota, QuotaGuard } from './usage/daily-quota.js';
import { RecordCaps } from './usage/record-caps.js';
import { ApiThrottlerGuard } from './throttling/api-throttler.guard.js';
import { ThrottlingModule } from './throttling/throttling.module.js';

/**
 * The request pipeline, registered once: caller identified → rate limit → tenant context → daily
 * quota → 401/403 → body errors → Idempotency-Key claim (guards run in this order) → validation pipe
 * → controller; the envelope is a fastify hook (app.factory.ts); any throw → one filter. The quota
 * comes before the refusals so that every authenticated call counts, a 403 or 400 too (issue 47).
 */
@Global()
@Module({})
export class CommonModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CommonModule,
      imports: [
        JwtModule.register({
          global: true,
          secret: config.jwtSecret,
          signOptions: { algorithm: 'HS256' },
          verifyOptions: { algorithms: ['HS256'] },
        }),
        ThrottlingModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_GUARD, useClass: AuthenticationGuard },
        { provide: APP_GUARD, useClass: ApiThrottlerGuard },
        { provide: APP_GUARD, useClass: TenantGuard },
        { provide: APP_GUARD, useClass: QuotaGuard },
        { provide: APP_GUARD, useClass: AccessGuard },
        { provide: APP_GUARD, useClass: BodyErrorGuard },
        { provide: APP_GUARD, useClass: IdempotencyGuard },
        {
          provide: APP_PIPE,
          useFactory: (sureInputs: SureInput[]) => new InputPipe(sureInputs),
          inject: [SURE_INPUTS],
        },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        PasswordHasher,
        Database,
        InsertIds,
        EventCatalog,
        EventSequencer,
        EventRedaction,
        ChangeFeed,
        FeedReads,
        FeedFollower,
        EventRetention,
        RecordCaps,
        DailyQuota,
        Jobs,
        {
          provide: OutboundHttp,
          useFactory: (c: AppConfig) =>
            new OutboundHttp(parseAllowedTargets(c.webhooks.allowedHosts), c.webhooks.timeoutMs),
          inject: [APP_CONFIG],
        },
        Tables,
        Metrics,
      ],
      exports: [
        APP_CONFIG,
        PasswordHasher,
        Database,
        Tables,
        EventCatalog,
        EventSequencer,
        EventRedaction,
        ChangeFeed,
        FeedReads,
        FeedFollower,
        EventRetention,
        RecordCaps,
        DailyQuota,
        Jobs,
        OutboundHttp,
        Metrics,
        ThrottlingModule,
      ],
    };
  }
}
