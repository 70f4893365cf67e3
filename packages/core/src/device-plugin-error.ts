import { Code } from './code';

/** An error a hook throws to choose the status the kubelet receives (default {@link Code.Internal}). */
export class DevicePluginError extends Error {
  /** The status (`Code.InvalidArgument`, …). */
  readonly code: Code;
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DevicePluginError';
    this.code = code;
  }
}

/** A gRPC error object as grpc-js callbacks accept it: a message and a status code. */
export interface GrpcErrorObject {
  code: Code;
  details: string;
  message: string;
}

const MAX_DETAILS = 1024;

function isCode(code: unknown): code is Code {
  return typeof code === 'number' && Number.isInteger(code) && code > 0 && code <= 16;
}

/**
 * Maps anything a hook threw to a gRPC error: a numeric `code` (DevicePluginError or any error carrying one)
 * is kept, everything else becomes INTERNAL; `context` prefixes the message so a pod event says where it came from.
 */
export function toGrpcError(error: unknown, context: string): GrpcErrorObject {
  const code = isCode((error as { code?: unknown } | null)?.code)
    ? (error as { code: Code }).code
    : Code.Internal;
  const raw = error instanceof Error ? error.message : String(error);
  const text = error instanceof DevicePluginError ? raw : `${context}: ${raw}`;
  const details = text.length > MAX_DETAILS ? `${text.slice(0, MAX_DETAILS)}…` : text;
  return { code, details, message: details };
}
