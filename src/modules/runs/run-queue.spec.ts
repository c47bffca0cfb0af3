import { progressPause } from './run-queue.js';

describe('progressPause: how long a delivering run waits before counting again', () => {
  it('is ten times what counting took, at least a second and at most ten', () => {
    expect(progressPause(0)).toBe(1_000);
    expect(progressPause(40)).toBe(1_000);
    expect(progressPause(350)).toBe(3_500);
    expect(progressPause(1_000)).toBe(10_000);
    expect(progressPause(4_000)).toBe(10_000);
  });
});
