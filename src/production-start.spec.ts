import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The container runs the service as `npm start` does (the benchmarks and the soak start it with the
 * flags of `npm start` too): the node flags are part of what docs/performance.md measured.
 */
describe('production start command', () => {
  const root = join(__dirname, '..');
  const npmStart = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const dockerCmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1];

  it('is the same node command line in package.json and the Dockerfile', () => {
    expect(dockerCmd).toBeDefined();
    expect((JSON.parse(dockerCmd!) as string[]).join(' ')).toBe(npmStart);
  });

  it('keeps the heap flags the Performance section relies on', () => {
    expect(npmStart.split(' ')).toEqual(
      expect.arrayContaining(['--heap-growing-percent=50', '--no-allocation-site-pretenuring']),
    );
  });
});
