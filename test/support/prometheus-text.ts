/**
 * A strict parser of the Prometheus text exposition format 0.0.4 (what GET /metrics answers), for
 * the tests: prom-client writes the format but has no parser, and the parsers on npm are unkept.
 * It refuses what Prometheus would refuse and what a well-formed exposition never holds: a bad name,
 * label or value, a missing final newline, a family declared twice or after its samples, families
 * interleaved, a series twice, a histogram whose buckets are not cumulative or end without `+Inf`
 * equal to its `_count`. Its tests are in test/metrics.e2e-spec.ts.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, `x_count` for a histogram `x`). */
  name: string;
  labels: Record<string, string>;
  value: number;
  timestamp?: number;
}

export interface MetricFamily {
  name: string;
  help?: string;
  type: MetricType;
  samples: Sample[];
}

export class ExpositionError extends Error {
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The families of an exposition, in their order, by name. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new ExpositionError(text.split('\n').length, 'no final newline');
  const families = new Map<string, MetricFamily>();
  const series = new Set<string>();
  /** Names that had a TYPE line (a family may have a HELP line alone). */
  const typed = new Set<string>();
  /** Families whose samples are over (another family's began after them). */
  const closed = new Set<string>();
  let current: MetricFamily | undefined;
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((line, index) => {
    const at = index + 1;
    const fail = (message: string): never => {
      throw new ExpositionError(at, `${message}: ${JSON.stringify(line)}`);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const meta = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!meta) return; // a comment
      const [, keyword, name, rest = ''] = meta;
      if (!METRIC_NAME.test(name)) fail('invalid metric name');
      const family = families.get(name) ?? { name, type: 'untyped' as MetricType, samples: [] };
      if (family.samples.length > 0 || closed.has(name)) fail(`${keyword} after the samples of ${name}`);
      if (keyword === 'HELP') {
        if (family.help !== undefined) fail(`second HELP of ${name}`);
        family.help = unescape(rest, false, fail);
      } else {
        if (typed.has(name)) fail(`second TYPE of ${name}`);
        if (!TYPES.has(rest.trim() as MetricType)) fail('unknown type');
        family.type = rest.trim() as MetricType;
        typed.add(name);
      }
      if (current && current.name !== name) closed.add(current.name);
      current = family;
      families.set(name, family);
      return;
    }
    const sample = parseSample(line, fail);
    const familyName = familyOf(sample.name, families);
    if (closed.has(familyName)) fail(`samples of ${familyName} are not together`);
    if (current && current.name !== familyName) closed.add(current.name);
    const family = families.get(familyName) ?? { name: familyName, type: 'untyped' as MetricType, samples: [] };
    families.set(familyName, family);
    current = family;
    if (family.type === 'histogram' && !/_(bucket|sum|count)$/.test(sample.name))
      fail('a histogram sample that is no _bucket, _sum or _count');
    if (family.type !== 'histogram' && family.type !== 'summary' && sample.name !== familyName)
      fail(`sample ${sample.name} in family ${familyName}`);
    if (family.type === 'counter' && !(sample.value >= 0)) fail('a counter below zero');
    const key = `${sample.name}{${Object.keys(sample.labels)
      .sort()
      .map((k) => `${k}=${JSON.stringify(sample.labels[k])}`)
      .join(',')}}`;
    if (series.has(key)) fail(`series ${key} twice`);
    series.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

function familyOf(sampleName: string, families: Map<string, MetricFamily>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue;
    const base = sampleName.slice(0, -suffix.length);
    const type = families.get(base)?.type;
    if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
  }
  return sampleName;
}

function parseSample(line: string, fail: (message: string) => never): Sample {
  const name = /^[^\s{]+/.exec(line)?.[0] ?? '';
  if (!METRIC_NAME.test(name)) fail('invalid metric name');
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    let i = 1;
    for (;;) {
      while (rest[i] === ' ') i++;
      if (rest[i] === '}') break;
      const labelName = /^[^\s=]+/.exec(rest.slice(i))?.[0] ?? '';
      if (!LABEL_NAME.test(labelName)) fail('invalid label name');
      if (labelName in labels) fail(`label ${labelName} twice`);
      i += labelName.length;
      while (rest[i] === ' ') i++;
      if (rest[i] !== '=' || rest[i + 1] !== '"') fail('a label value must be quoted');
      i += 2;
      let raw = '';
      while (rest[i] !== '"') {
        if (i >= rest.length) fail('unterminated label value');
        if (rest[i] === '\\') {
          raw += rest.slice(i, i + 2);
          i += 2;
        } else raw += rest[i++];
      }
      labels[labelName] = unescape(raw, true, fail);
      i++;
      while (rest[i] === ' ') i++;
      if (rest[i] === ',') i++;
      else if (rest[i] !== '}') fail('labels must be separated by commas');
    }
    rest = rest.slice(i + 1);
  }
  const fields = rest.trim().split(/[ \t]+/);
  if (!/^[ \t]/.test(rest) || fields.length < 1 || fields.length > 2 || fields[0] === '') fail('expected a value');
  const value = parseValue(fields[0], fail);
  let timestamp: number | undefined;
  if (fields.length === 2) {
    if (!/^-?\d+$/.test(fields[1])) fail('invalid timestamp');
    timestamp = Number(fields[1]);
  }
  return { name, labels, value, ...(timestamp === undefined ? {} : { timestamp }) };
}

/** A value as Go's strconv.ParseFloat reads it (the format's definition): NaN and Inf in any case. */
function parseValue(text: string, fail: (message: string) => never): number {
  if (/^nan$/i.test(text)) return NaN;
  const infinite = /^([+-]?)inf(inity)?$/i.exec(text);
  if (infinite) return infinite[1] === '-' ? -Infinity : Infinity;
  if (!FLOAT.test(text)) fail(`invalid value ${text}`);
  return Number(text);
}

/** `\\` and `\n` in HELP; `\\`, `\"` and `\n` in a label value; any other escape is an error. */
function unescape(raw: string, quoted: boolean, fail: (message: string) => never): string {
  return raw.replace(/\\(.?)/g, (_, char: string) => {
    if (char === '\\') return '\\';
    if (char === 'n') return '\n';
    if (char === '"' && quoted) return '"';
    return fail(`invalid escape \\${char}`);
  });
}

/** Per label set: buckets in rising `le`, counts never falling, `+Inf` last and equal to `_count`; a `_sum`. */
function checkHistogram(family: MetricFamily): void {
  const groups = new Map<string, Sample[]>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    if (sample.name.endsWith('_bucket') && le === undefined)
      throw new ExpositionError(0, `${family.name}: bucket without le`);
    const key = JSON.stringify(Object.entries(rest).sort());
    groups.set(key, [...(groups.get(key) ?? []), sample]);
  }
  for (const [key, samples] of groups) {
    const where = `${family.name}${key}`;
    const buckets = samples.filter((s) => s.name === `${family.name}_bucket`);
    const count = samples.find((s) => s.name === `${family.name}_count`);
    const sum = samples.find((s) => s.name === `${family.name}_sum`);
    if (!count || !sum || buckets.length === 0)
      throw new ExpositionError(0, `${where}: needs buckets, _sum and _count`);
    let previous = { le: -Infinity, value: 0 };
    for (const bucket of buckets) {
      const le = parseValue(bucket.labels.le, (message) => {
        throw new ExpositionError(0, `${where}: ${message}`);
      });
      if (!(le > previous.le) || bucket.value < previous.value) {
        throw new ExpositionError(0, `${where}: buckets not cumulative in rising le`);
      }
      previous = { le, value: bucket.value };
    }
    if (previous.le !== Infinity || previous.value !== count.value) {
      throw new ExpositionError(0, `${where}: the last bucket must be le="+Inf" and equal _count`);
    }
  }
}
