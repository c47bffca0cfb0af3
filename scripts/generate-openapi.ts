import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createApp } from '../src/app.factory.js';
import { loadConfig } from '../src/common/config/app-config.js';
import { buildOpenApiDocument } from '../src/common/openapi/openapi.js';
import { CLIENT_TYPES_FILE, clientTypes } from './client-types.js';

/** Boots the app on a throw-away SQLite file, without listening, and writes the sorted document. */
async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'openapi-generation-only-key',
    ADMIN_PASSWORD: 'not-used-here',
  });
  const app = await createApp(config);
  try {
    const target = resolve(process.argv[2] ?? 'openapi.json');
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument(app))) as object;
    writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
    console.log(`wrote ${target}`);
    // The typed client's types, from the document as written.
    const types = resolve(CLIENT_TYPES_FILE);
    writeFileSync(types, await clientTypes(document));
    console.log(`wrote ${types}`);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
