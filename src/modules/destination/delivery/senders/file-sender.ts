import { Injectable } from '@nestjs/common';
import type { FileConfig } from '../../config/destination-config.js';
import { DestinationFiles, type FileWriter } from '../../files/destination-files.js';
import type { BatchContext, PreparedRecord } from '../delivery-record.js';
import { clip, elapsedSince, type DestinationSender, type SendResult, type SendTarget } from './sender.js';

/**
 * `file` (docs/destinations/file.md): a batch becomes one whole file, named after the batch (a
 * retried batch writes it again and replaces it), under its run's folder (a test send's under
 * `tests/`). Written is delivered.
 */
@Injectable()
export class FileSender implements DestinationSender<FileConfig> {
  constructor(private readonly files: DestinationFiles) {}

  async send(
    target: SendTarget<FileConfig>,
    records: readonly PreparedRecord[],
    context: BatchContext,
  ): Promise<SendResult> {
    const { config } = target;
    const started = performance.now();
    const name = `${context.batchId.replace(/[^A-Za-z0-9._-]/g, '-')}.${config.format}`;
    let writer: FileWriter | undefined;
    try {
      writer = await this.files.open({
        tenantId: context.tenantId,
        runId: context.test ? null : context.runId,
        name,
        campaignDestinationId: context.campaignDestinationId,
        format: config.format,
        targets: context.targets ?? Object.keys(records[0]?.data ?? {}),
      });
      await writer.write(records);
      const file = await writer.close();
      return {
        outcomes: records.map((record) => ({ message_id: record.message_id, status: 'delivered' })),
        reached: true,
        status: 'written',
        answer: clip(`${file.name}: ${file.records} records, ${file.bytes} bytes`),
        durationMs: elapsedSince(started),
      };
    } catch (error) {
      await writer?.abort();
      // The error's code only: its message names the server's paths.
      const message = `the file could not be written (${(error as { code?: string }).code ?? 'error'})`;
      return {
        outcomes: [],
        transient: { error: message },
        reached: false,
        status: null,
        answer: message,
        durationMs: elapsedSince(started),
      };
    }
  }
}
