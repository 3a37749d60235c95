// Why a request never got an answer, named: fetch (undici) says only `fetch failed` and keeps the system error in its
// `cause` (an AggregateError when several addresses were tried). DNS, a refused connection, a timeout, TLS and a
// dropped connection each have their own fix, so each is told apart here.

export type NetworkFailureKind = 'dns' | 'refused' | 'timeout' | 'tls' | 'reset' | 'unreachable' | 'blocked-port';

export interface NetworkFailure {
  kind: NetworkFailureKind;
  /** What happened, with the system's code: `the host name x.invalid does not resolve (ENOTFOUND)`. */
  detail: string;
}

interface SystemError {
  name?: string;
  code?: unknown;
  message?: string;
  hostname?: string;
  address?: string;
  port?: number;
  cause?: unknown;
  errors?: unknown[];
}

const dnsCodes = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const timeoutCodes = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const resetCodes = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const unreachableCodes = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENETDOWN', 'EHOSTDOWN']);
const tlsCode = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|EPROTO$)/;

/** The network failure behind `error` (its cause chain), or undefined when it is not one. */
export function networkFailureOf(error: unknown): NetworkFailure | undefined {
  for (let current: unknown = error, depth = 0; typeof current === 'object' && current !== null && depth < 6; depth++) {
    const failure = classify(current);
    if (failure) return failure;
    const e = current as SystemError;
    current = e.cause ?? (Array.isArray(e.errors) ? e.errors[0] : undefined);
  }
  return undefined;
}

function classify(e: SystemError): NetworkFailure | undefined {
  const code = typeof e.code === 'string' ? e.code : undefined;
  const at = e.address !== undefined ? `${e.address}${e.port !== undefined ? `:${e.port}` : ''}` : undefined;
  if (code !== undefined && dnsCodes.has(code)) {
    const host = e.hostname ?? /(?:ENOTFOUND|EAI_AGAIN) (\S+)/.exec(e.message ?? '')?.[1] ?? 'the host';
    return { kind: 'dns', detail: `the host name ${host} does not resolve (${code}${code === 'EAI_AGAIN' ? ': the DNS server did not answer, try again or check the resolver' : ''})` };
  }
  if (code === 'ECONNREFUSED') return { kind: 'refused', detail: `connection refused${at ? ` by ${at}` : ''} (ECONNREFUSED): nothing listens there` };
  if ((code !== undefined && timeoutCodes.has(code)) || e.name === 'TimeoutError') return { kind: 'timeout', detail: `no answer in time (${code ?? e.name ?? 'timeout'})` };
  if (code !== undefined && resetCodes.has(code)) return { kind: 'reset', detail: `the connection was closed before an answer (${code})` };
  if (code !== undefined && unreachableCodes.has(code)) return { kind: 'unreachable', detail: `no route${at ? ` to ${at}` : ''} (${code})` };
  if (code !== undefined && tlsCode.test(code)) return { kind: 'tls', detail: `the TLS handshake failed (${code}${e.message ? `: ${e.message}` : ''})` };
  // fetch refuses the ports of the Fetch standard's "bad ports" list (6000, 6665-6669, 9, 25, ...) before connecting.
  if (e.message === 'bad port') return { kind: 'blocked-port', detail: 'fetch does not connect to this port: it is on the Fetch standard\'s list of blocked ("bad") ports' };
  return undefined;
}
