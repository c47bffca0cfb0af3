import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, resolve, sep, win32 } from 'node:path';
import { ValidationFailed, type FieldErrors } from '../../common/http/api-exception.js';

export interface AttachmentRequest {
  path: string;
  as?: string | null;
  mime?: string | null;
}

export interface ResolvedAttachment {
  filename: string;
  /** Real path of the file, inside the storage area. */
  path: string;
  contentType?: string;
}

type Outcome = { path: string } | { error: 'outside' | 'missing' };

/**
 * Resolves attachment paths relative to the storage area (`STORAGE_DIR/app/`). A path that
 * leaves it (`..`, absolute, or a link pointing out) or names no regular file is a 422 on
 * `attachments.N.path`, every failing entry reported at once.
 */
export async function resolveAttachments(
  storageRoot: string,
  requested: readonly AttachmentRequest[],
): Promise<ResolvedAttachment[]> {
  const root = await realpath(storageRoot).catch(() => null);
  const errors: FieldErrors = {};
  const resolved: ResolvedAttachment[] = [];
  for (const [index, attachment] of requested.entries()) {
    const key = `attachments.${index}.path`;
    const outcome = await resolveInside(root, attachment.path);
    if ('error' in outcome) {
      errors[key] = [
        outcome.error === 'outside'
          ? `The ${key} field must be a relative path inside the storage area.`
          : `The ${key} field must name an existing file.`,
      ];
      continue;
    }
    resolved.push({
      filename: attachment.as || basename(attachment.path),
      path: outcome.path,
      contentType: attachment.mime || undefined,
    });
  }
  if (Object.keys(errors).length > 0) throw new ValidationFailed(errors);
  return resolved;
}

async function resolveInside(root: string | null, relative: string): Promise<Outcome> {
  const leaves =
    isAbsolute(relative) ||
    win32.isAbsolute(relative) ||
    relative.includes('\0') ||
    relative.split(/[\\/]/).includes('..');
  if (leaves) return { error: 'outside' };
  if (root === null) return { error: 'missing' };
  let real: string;
  try {
    // realpath follows every link, so the prefix check below sees where the file really is.
    real = await realpath(resolve(root, relative));
  } catch {
    return { error: 'missing' };
  }
  const prefix = root.endsWith(sep) ? root : root + sep;
  if (real !== root && !real.startsWith(prefix)) return { error: 'outside' };
  const stats = await stat(real).catch(() => null);
  return stats?.isFile() ? { path: real } : { error: 'missing' };
}
