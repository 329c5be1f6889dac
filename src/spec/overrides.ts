/**
 * Field overrides as the command line spells them: `--set gpu.pcieGen=4`, `--set fabric.tcp.rttUs=30`,
 * `--set cluster.gpuDirectRdma=off`. Each value is read in its field's unit (a bare number is already
 * in it: `lineRateGbps=200`; a unit converts: `lineRateGbps=25GB/s`), then checked by the field's own
 * schema so ranges hold. Errors name the field and the form expected; nothing here prints or exits.
 */
import { z } from 'zod';
import { UsageError } from '../core/errors.js';
import { parseDuration, parseRate, parseSize } from '../core/units.js';
import { ClusterSchema, IntraNodeSchema } from './cluster.js';
import { FabricSchema, TcpBehaviourSchema, type FabricSpec } from './fabric.js';
import { GpuSchema, type GpuSpec } from './gpu.js';
import { nearestKey } from './strict-object.js';

export const OVERRIDE_SCOPES = ['gpu', 'fabric', 'cluster'] as const;
export type OverrideScope = (typeof OVERRIDE_SCOPES)[number];

/** One parsed `--set`: where it goes and the value in the field's own unit. */
export interface FieldOverride {
  scope: OverrideScope;
  /** `pcieGen`, or `tcp.rttUs` / `intraNode.kind` for the nested ones. */
  field: string;
  value: number | boolean | string;
}

/** Overrides grouped by scope; nested objects (`tcp`, `intraNode`) are nested here too. */
export interface FieldOverrides {
  gpu: Record<string, unknown>;
  fabric: Record<string, unknown>;
  cluster: Record<string, unknown>;
}

export const emptyFieldOverrides = (): FieldOverrides => ({ gpu: {}, fabric: {}, cluster: {} });

/** Identity and bookkeeping fields a `--set` may not change: choose another preset with --gpu / --fabric. */
const NOT_SETTABLE = new Set(['id', 'name', 'sources', 'gpu', 'fabric', 'topology']);
/** What the walk reads of a zod object: its fields' schemas. */
interface ObjectShape {
  shape: Record<string, z.ZodType>;
}

/** Nested objects whose fields `--set` reaches as `tcp.rttUs`, `intraNode.kind`. */
const NESTED: Record<OverrideScope, Record<string, ObjectShape>> = {
  gpu: {},
  fabric: { tcp: TcpBehaviourSchema },
  cluster: { intraNode: IntraNodeSchema },
};
const ROOT: Record<OverrideScope, ObjectShape> = {
  gpu: GpuSchema,
  fabric: FabricSchema,
  cluster: ClusterSchema,
};

type FieldKind =
  | { kind: 'number'; unit?: UnitKind }
  | { kind: 'boolean' }
  | { kind: 'string' }
  | { kind: 'enum'; options: readonly string[] };
type UnitKind = 'Gbps' | 'GBps' | 'TBps' | 'us' | 'ms' | 'bytes' | 'GB';

interface FieldInfo {
  field: string;
  schema: z.ZodType;
  type: FieldKind;
}

/** The schema under `.optional()` / `.default()`. */
function innerSchema(schema: z.ZodType): z.ZodType {
  let inner = schema as z.ZodType & { def: { type: string; innerType?: z.ZodType } };
  while ((inner.def.type === 'optional' || inner.def.type === 'default') && inner.def.innerType) {
    inner = inner.def.innerType;
  }
  return inner;
}

/** A field's unit from its name, as the schemas spell them (`lineRateGbps`, `hbmBandwidthTBps`, `rttUs`). */
function unitOf(field: string): UnitKind | undefined {
  if (field.endsWith('Gbps')) return 'Gbps';
  if (field.endsWith('GBps')) return 'GBps';
  if (field.endsWith('TBps')) return 'TBps';
  if (field.endsWith('Us')) return 'us';
  if (field.endsWith('Ms')) return 'ms';
  if (field.endsWith('Bytes')) return 'bytes';
  if (field.endsWith('GB')) return 'GB';
  return undefined;
}

function kindOf(field: string, schema: z.ZodType): FieldKind | undefined {
  const inner = innerSchema(schema) as z.ZodType & { def: { type: string }; options?: readonly string[] };
  switch (inner.def.type) {
    case 'number': {
      const unit = unitOf(field);
      return unit ? { kind: 'number', unit } : { kind: 'number' };
    }
    case 'boolean':
      return { kind: 'boolean' };
    case 'string':
      return { kind: 'string' };
    case 'enum':
      return { kind: 'enum', options: inner.options ?? [] };
    default:
      return undefined;
  }
}

/** Every field `--set SCOPE.` accepts, nested ones as `tcp.rttUs`. */
export function settableFields(scope: OverrideScope): FieldInfo[] {
  const fields: FieldInfo[] = [];
  for (const [key, schema] of Object.entries(ROOT[scope].shape)) {
    if (NOT_SETTABLE.has(key)) continue;
    const nested = NESTED[scope][key];
    if (nested) {
      for (const [inner, innerSchemaOf] of Object.entries(nested.shape)) {
        const type = kindOf(inner, innerSchemaOf);
        if (type) fields.push({ field: `${key}.${inner}`, schema: innerSchemaOf, type });
      }
      continue;
    }
    const type = kindOf(key, schema);
    if (type) fields.push({ field: key, schema, type });
  }
  return fields;
}

const UNIT_FORMS: Record<UnitKind, string> = {
  Gbps: 'Gb/s: a number, or a rate such as 200Gbps or 25GB/s',
  GBps: 'GB/s: a number, or a rate such as 450GB/s or 3600Gbps',
  TBps: 'TB/s: a number, or a rate such as 3.35TB/s',
  us: 'microseconds: a number, or a duration such as 2us or 500ns',
  ms: 'milliseconds: a number, or a duration such as 200ms or 1s',
  bytes: 'bytes: a number, or a size such as 4096 or 9K',
  GB: 'GB: a number, or a size such as 80GB or 141GB',
};

function describeKind(type: FieldKind): string {
  switch (type.kind) {
    case 'number':
      return type.unit ? UNIT_FORMS[type.unit] : 'a number';
    case 'boolean':
      return 'true, false, on or off';
    case 'string':
      return 'a string';
    case 'enum':
      return `one of ${type.options.join(', ')}`;
  }
}

const BARE_NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?\s*$/i;

/** The value in the field's unit, or undefined when the text is not of the field's form. */
function readValue(text: string, type: FieldKind): number | boolean | string | undefined {
  switch (type.kind) {
    case 'boolean': {
      const lower = text.trim().toLowerCase();
      if (lower === 'true' || lower === 'on') return true;
      if (lower === 'false' || lower === 'off') return false;
      return undefined;
    }
    case 'string':
      return text;
    case 'enum':
      return type.options.find((option) => option === text.trim().toLowerCase());
    case 'number': {
      if (BARE_NUMBER.test(text)) return Number(text);
      try {
        switch (type.unit) {
          case 'Gbps':
            return parseRate(text) / 1e9;
          case 'GBps':
            return parseRate(text) / 8e9;
          case 'TBps':
            return parseRate(text) / 8e12;
          case 'us':
            return parseDuration(text) * 1e6;
          case 'ms':
            return parseDuration(text) * 1e3;
          case 'bytes':
            return parseSize(text);
          case 'GB':
            return parseSize(text) / 1e9;
          case undefined:
            return undefined;
        }
      } catch (error) {
        if (error instanceof UsageError) return undefined;
        throw error;
      }
    }
  }
}

function unknownField(flag: string, scope: OverrideScope, field: string, known: readonly string[]): never {
  const near = nearestKey(field, known);
  const hint = near !== undefined ? `did you mean ${scope}.${near}? ` : '';
  throw new UsageError(`${flag} ${scope}.${field}: unknown field (${hint}fields: ${known.join(', ')})`);
}

/** One `--set SCOPE.FIELD=VALUE`, read and checked against the field's schema. */
export function parseFieldOverride(text: string, flag = '--set'): FieldOverride {
  const match = /^\s*([A-Za-z]+)\.([A-Za-z][\w.]*)\s*=(.*)$/s.exec(text);
  if (!match) {
    throw new UsageError(
      `invalid ${flag}: "${text}" (expected SCOPE.FIELD=VALUE with SCOPE one of ${OVERRIDE_SCOPES.join(', ')}, e.g. gpu.pcieGen=4)`,
    );
  }
  const scopeText = (match[1] ?? '').toLowerCase();
  const scope = OVERRIDE_SCOPES.find((candidate) => candidate === scopeText);
  if (!scope)
    throw new UsageError(
      `invalid ${flag}: "${text}" (the scope "${match[1] ?? ''}" is none of ${OVERRIDE_SCOPES.join(', ')})`,
    );
  const field = match[2] ?? '';
  const raw = (match[3] ?? '').trim();
  const fields = settableFields(scope);
  const info = fields.find((candidate) => candidate.field === field);
  if (!info)
    return unknownField(
      flag,
      scope,
      field,
      fields.map((candidate) => candidate.field),
    );
  const name = `${flag} ${scope}.${field}`;
  const value = raw === '' ? undefined : readValue(raw, info.type);
  if (value === undefined)
    throw new UsageError(`${name}: invalid value "${raw}" (expected ${describeKind(info.type)})`);
  const checked = info.schema.safeParse(value);
  if (!checked.success) {
    const reason = checked.error.issues[0]?.message ?? 'out of range';
    throw new UsageError(`${name}: invalid value "${raw}" (${reason})`);
  }
  return { scope, field, value };
}

/** The parsed `--set`s by scope, later ones winning, nested fields nested. */
export function groupFieldOverrides(list: readonly FieldOverride[]): FieldOverrides {
  const grouped = emptyFieldOverrides();
  for (const { scope, field, value } of list) {
    const [head = '', tail] = field.split('.', 2);
    const target = grouped[scope];
    if (tail === undefined) {
      target[head] = value;
    } else {
      const nested = (target[head] ?? {}) as Record<string, unknown>;
      target[head] = { ...nested, [tail]: value };
    }
  }
  return grouped;
}

export const hasFieldOverrides = (fields: FieldOverrides | undefined): boolean =>
  fields !== undefined && OVERRIDE_SCOPES.some((scope) => Object.keys(fields[scope]).length > 0);

/** `gpu.pcieGen=4`, `fabric.tcp.rttUs=30`: the overrides of one scope (or all) as the flags spelled them. */
export function describeFieldOverrides(
  fields: FieldOverrides,
  scopes: readonly OverrideScope[] = OVERRIDE_SCOPES,
): string[] {
  const out: string[] = [];
  for (const scope of scopes) {
    for (const [key, value] of Object.entries(fields[scope])) {
      if (value !== null && typeof value === 'object') {
        for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>))
          out.push(`${scope}.${key}.${inner}=${String(innerValue)}`);
      } else {
        out.push(`${scope}.${key}=${String(value)}`);
      }
    }
  }
  return out;
}

function failMerged(what: string, error: z.ZodError): never {
  const issue = error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  throw new UsageError(
    `${what}${path ? `.${path}` : ''} after the overrides: ${issue?.message ?? 'invalid'}`,
  );
}

/** A GPU with fields replaced, checked as a whole. */
export function applyGpuOverrides(gpu: GpuSpec, fields: Record<string, unknown>): GpuSpec {
  if (Object.keys(fields).length === 0) return gpu;
  const parsed = GpuSchema.safeParse({ ...gpu, ...fields });
  if (!parsed.success) return failMerged(`gpu ${gpu.id}`, parsed.error);
  return parsed.data;
}

/**
 * A fabric with fields replaced (`tcp.*` merged into its TCP behaviour), checked as a whole. A fabric
 * without TCP behaviour (RDMA) refuses `tcp.*`, unless `tcpWhereTcp` (one override over several
 * fabrics, as `compare`): then `tcp.*` changes the TCP fabrics only.
 */
export function applyFabricOverrides(
  fabric: FabricSpec,
  fields: Record<string, unknown>,
  options: { tcpWhereTcp?: boolean } = {},
): FabricSpec {
  if (Object.keys(fields).length === 0) return fabric;
  const { tcp: tcpValue, ...plain } = fields;
  const tcpFields = tcpValue as Record<string, unknown> | undefined;
  if (tcpFields !== undefined && fabric.tcp === undefined && options.tcpWhereTcp !== true) {
    throw new UsageError(
      `--set fabric.tcp.${Object.keys(tcpFields)[0] ?? ''}: fabric ${fabric.id} (${fabric.transport}) has no TCP behaviour to change`,
    );
  }
  const tcp =
    tcpFields !== undefined && fabric.tcp !== undefined ? { tcp: { ...fabric.tcp, ...tcpFields } } : {};
  if (Object.keys(plain).length === 0 && Object.keys(tcp).length === 0) return fabric;
  const merged = { ...fabric, ...plain, ...tcp };
  const parsed = FabricSchema.safeParse(merged);
  if (!parsed.success) return failMerged(`fabric ${fabric.id}`, parsed.error);
  return parsed.data;
}

/** What the hardware flags give, already read by the CLI's argument parsers. */
export interface HardwareFlags {
  /** `--set` texts, in order. */
  set?: readonly string[];
  /** `--pcie genNxW`. */
  pcie?: { pcieGen: number; pcieLanes: number };
  /** `--nvlink-bandwidth`, both directions together (GB/s). */
  nvlinkBandwidthGBps?: number;
}

/** `--set`s parsed and grouped, then the dedicated flags on top (`--pcie` wins over `--set gpu.pcieGen`). */
export function fieldOverridesFrom(flags: HardwareFlags): FieldOverrides {
  const fields = groupFieldOverrides((flags.set ?? []).map((text) => parseFieldOverride(text)));
  if (flags.pcie) Object.assign(fields.gpu, flags.pcie);
  if (flags.nvlinkBandwidthGBps !== undefined) fields.gpu.nvlinkBandwidthGBps = flags.nvlinkBandwidthGBps;
  return fields;
}
