import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const IS_PUBLIC = 'is_public';
/** OpenAPI marker read by the document post-processor: public operations carry no bearer scheme. */
export const PUBLIC_EXTENSION = 'x-public';

/** Opts a route (or controller) out of the global authentication guard; everything else needs a token. */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension(PUBLIC_EXTENSION, true));
