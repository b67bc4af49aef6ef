import { InvalidConfigError } from '@wharf/swarm';

/** The span exporters Wharf can start from the environment. */
export type TracesExporter = 'otlp' | 'console';

/** What the `OTEL_*` variables ask of tracing (see {@link readTracingEnv}). */
export interface TracingSettings {
  /** Where spans go: OTLP over HTTP (protobuf), the console, or both. */
  exporters: readonly TracesExporter[];
  /** The variable that turned tracing on (for messages). */
  enabledBy: string;
  /** OTLP traces URL: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
  otlpUrl: string;
  /** `OTEL_EXPORTER_OTLP_HEADERS`, with `OTEL_EXPORTER_OTLP_TRACES_HEADERS` over them. */
  otlpHeaders: Readonly<Record<string, string>>;
  /** `OTEL_SERVICE_NAME`, when set. */
  serviceName: string | undefined;
  /** `OTEL_RESOURCE_ATTRIBUTES`. */
  resourceAttributes: Readonly<Record<string, string>>;
  /** `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`: model spans record prompts and answers. */
  recordContent: boolean;
}

const DEFAULT_OTLP_URL = 'http://localhost:4318/v1/traces';

/**
 * Reads the standard OpenTelemetry variables. Tracing is **off** unless `OTEL_TRACES_EXPORTER`
 * names an exporter (`otlp`, `console`, or both comma-separated) or an OTLP endpoint is set
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_TRACES_EXPORTER=none`
 * and `OTEL_SDK_DISABLED=true` keep it off. OTLP goes over HTTP with protobuf
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`, the default; `grpc` and `http/json` are refused).
 * Also read: `OTEL_EXPORTER_OTLP_HEADERS` / `_TRACES_HEADERS`, `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`; the SDK itself
 * reads `OTEL_TRACES_SAMPLER` / `_ARG` and `OTEL_BSP_*`. Empty variables count as unset. A value
 * that cannot work is an {@link InvalidConfigError} naming the variable.
 *
 * @example
 * ```ts
 * readTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })?.otlpUrl; // 'http://collector:4318/v1/traces'
 * readTracingEnv({}); // undefined: tracing is off
 * ```
 */
export function readTracingEnv(
  env: Readonly<Record<string, string | undefined>>,
): TracingSettings | undefined {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  if (read('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const tracesEndpoint = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  const named = read('OTEL_TRACES_EXPORTER');
  let exporters: TracesExporter[];
  let enabledBy: string;
  if (named !== undefined) {
    const names = named.split(',').map((name) => name.trim().toLowerCase());
    if (names.length === 1 && names[0] === 'none') return undefined;
    const unsupported = names.filter((name) => name !== 'otlp' && name !== 'console');
    if (unsupported.length > 0) {
      throw new InvalidConfigError(
        'OTEL_TRACES_EXPORTER',
        `OTEL_TRACES_EXPORTER: ${unsupported.map((name) => `"${name}"`).join(', ')} is not supported; use otlp, console (or both, comma-separated) or none`,
      );
    }
    exporters = [...new Set(names as TracesExporter[])];
    enabledBy = 'OTEL_TRACES_EXPORTER';
  } else if (tracesEndpoint !== undefined || endpoint !== undefined) {
    exporters = ['otlp'];
    enabledBy =
      tracesEndpoint === undefined ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';
  } else {
    return undefined;
  }
  if (exporters.includes('otlp')) {
    for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
      const protocol = read(name);
      if (protocol === undefined) continue;
      if (protocol !== 'http/protobuf') {
        throw new InvalidConfigError(
          name,
          `${name}: "${protocol}" is not supported; Wharf exports OTLP over http/protobuf (point it at the collector's HTTP port, usually 4318)`,
        );
      }
      break;
    }
  }
  return {
    exporters,
    enabledBy,
    otlpUrl:
      tracesEndpoint !== undefined
        ? httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint)
        : endpoint !== undefined
          ? `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint).replace(/\/+$/, '')}/v1/traces`
          : DEFAULT_OTLP_URL,
    otlpHeaders: {
      ...keyValueList('OTEL_EXPORTER_OTLP_HEADERS', read('OTEL_EXPORTER_OTLP_HEADERS')),
      ...keyValueList('OTEL_EXPORTER_OTLP_TRACES_HEADERS', read('OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
    },
    serviceName: read('OTEL_SERVICE_NAME'),
    resourceAttributes: keyValueList('OTEL_RESOURCE_ATTRIBUTES', read('OTEL_RESOURCE_ATTRIBUTES')),
    recordContent: read('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')?.toLowerCase() === 'true',
  };
}

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidConfigError(name, `${name}: "${value}" is not a URL (e.g. http://collector:4318)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidConfigError(name, `${name}: "${value}" is not an http(s) URL`);
  }
  return value;
}

/** `key=value,key2=value2`, values percent-decoded, as the OTel specification writes lists. */
function keyValueList(name: string, value: string | undefined): Record<string, string> {
  if (value === undefined) return {};
  const entries: Record<string, string> = {};
  for (const item of value.split(',')) {
    if (item.trim() === '') continue;
    const equals = item.indexOf('=');
    const key = equals < 0 ? '' : item.slice(0, equals).trim();
    if (key === '') {
      throw new InvalidConfigError(name, `${name}: "${item.trim()}" is not key=value`);
    }
    try {
      entries[key] = decodeURIComponent(item.slice(equals + 1).trim());
    } catch {
      throw new InvalidConfigError(name, `${name}: the value of ${key} is not percent-encoded correctly`);
    }
  }
  return entries;
}
