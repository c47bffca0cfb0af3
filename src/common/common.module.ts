import { randomUUID } from 'node:crypto';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { ClsModule } from 'nestjs-cls';
import { LoggerModule } from 'nestjs-pino';
import { JwtAuthGuard } from './auth/jwt-auth.guard.js';
import { PasswordHasher } from './auth/password-hasher.js';
import { PermissionGuard } from './auth/permission.guard.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { BodyErrorGuard } from './http/body-parsing.js';
import { EnvelopeInterceptor } from './http/envelope.interceptor.js';
import { AllExceptionsFilter } from './http/exception.filter.js';
import { createValidationPipe } from './http/validation.js';
import { loggerOptions } from './logging/logger-options.js';
import { RequestContext } from './tenancy/request-context.js';
import { TenantInterceptor } from './tenancy/tenant.interceptor.js';
import { ApiThrottlerGuard } from './throttling/api-throttler.guard.js';
import { ThrottlingModule } from './throttling/throttling.module.js';

/**
 * The request pipeline, registered once: rate limit → authentication → permission → body errors
 * (guards run in this order) → tenant context → validation pipe → controller → envelope;
 * any throw → one filter.
 */
@Global()
@Module({})
export class CommonModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CommonModule,
      imports: [
        LoggerModule.forRoot(loggerOptions(config)),
        JwtModule.register({
          global: true,
          secret: config.jwtSecret,
          signOptions: { algorithm: 'HS256' },
          verifyOptions: { algorithms: ['HS256'] },
        }),
        ThrottlingModule,
        ClsModule.forRoot({
          global: true,
          middleware: { mount: true, generateId: true, idGenerator: () => randomUUID() },
        }),
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_GUARD, useClass: ApiThrottlerGuard },
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_GUARD, useClass: PermissionGuard },
        { provide: APP_GUARD, useClass: BodyErrorGuard },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: TenantInterceptor },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        PasswordHasher,
        RequestContext,
      ],
      exports: [APP_CONFIG, PasswordHasher, RequestContext],
    };
  }
}
