import { StatementTexts } from './statement-texts.js';

describe('StatementTexts', () => {
  it('composes a shape once and answers the very same text after', () => {
    const texts = new StatementTexts();
    const compose = jest.fn(() => ['SELECT a', 'FROM t'].join(' '));
    const first = texts.of('id|t.tenant_id = ?|', compose);
    expect(texts.of('id|t.tenant_id = ?|', compose)).toBe(first);
    expect(compose).toHaveBeenCalledTimes(1);
    expect(texts.of('id|t.tenant_id = ?| FOR UPDATE', () => 'SELECT a FROM t FOR UPDATE')).toBe(
      'SELECT a FROM t FOR UPDATE',
    );
  });

  it('keeps 512 shapes, and composes any further one on every call', () => {
    const texts = new StatementTexts();
    for (let i = 0; i < 512; i++) texts.of(`shape ${i}`, () => `SELECT ${i}`);
    const compose = jest.fn(() => 'SELECT 512');
    expect(texts.of('shape 512', compose)).toBe('SELECT 512');
    expect(texts.of('shape 512', compose)).toBe('SELECT 512');
    expect(compose).toHaveBeenCalledTimes(2);
    const kept = jest.fn(() => 'never');
    expect(texts.of('shape 0', kept)).toBe('SELECT 0');
    expect(kept).not.toHaveBeenCalled();
  });
});
