import type { Request } from 'express';
import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config.js';
import { requestId } from '../http/request-id.js';

interface RequestWithContext extends Request {
  user?: { id?: number; tenant_id?: number };
  tenantId?: number;
}

/** JSON log lines with the request id, tenant, user, method, path, status and duration; secrets masked. */
export function loggerOptions(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      genReqId: requestId,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token'],
        censor: '[redacted]',
      },
      customProps: (req) => {
        const r = req as RequestWithContext;
        return { tenant_id: r.tenantId ?? r.user?.tenant_id, user_id: r.user?.id };
      },
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    },
  };
}
