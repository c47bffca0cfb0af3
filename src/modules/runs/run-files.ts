import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { RecordNotFound } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import { Tables } from '../../common/persistence/tables.js';
import { DestinationFiles, type DestinationFile } from '../destination/files/destination-files.js';
import { CampaignRun } from './entities/campaign-run.entity.js';

/** A file of a run and how to read it. */
export interface RunFileDownload {
  file: DestinationFile;
  stream: Readable;
}

/**
 * The files a run's `file` destinations wrote (`GET /api/campaign-runs/{id}/files[/{name}]`): one
 * per association, complete once listed, kept FILE_RETENTION_DAYS.
 */
@Injectable()
export class RunFiles {
  constructor(
    private readonly tables: Tables,
    private readonly files: DestinationFiles,
  ) {}

  async list(auth: AuthContext, runId: number): Promise<Page<DestinationFile>> {
    await this.run(auth, runId);
    const files = await this.files.list({ tenantId: auth.tenantId, runId });
    // A run has a file per `file` association: one page holds them all.
    return new Page(files, {
      limit: Math.max(100, files.length),
      next_cursor: null,
      has_more: false,
      total: files.length,
    });
  }

  async open(auth: AuthContext, runId: number, name: string): Promise<RunFileDownload> {
    await this.run(auth, runId);
    const place = { tenantId: auth.tenantId, runId };
    const path = await this.files.pathOf(place, name);
    const file = path && (await this.files.list(place)).find((f) => f.name === name);
    if (!path || !file) throw new RecordNotFound('file');
    return { file, stream: createReadStream(path) };
  }

  private async run(auth: AuthContext, runId: number): Promise<void> {
    if (!(await this.tables.read(auth).table(CampaignRun).findById(runId))) throw new RecordNotFound('campaign run');
  }
}
