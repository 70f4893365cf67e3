import { status } from '@grpc/grpc-js';

/** An error a hook throws to choose the gRPC status the kubelet receives (default INTERNAL). */
export class DevicePluginError extends Error {
  /** The gRPC status code (`status.INVALID_ARGUMENT`, …). */
  readonly code: status;

  constructor(code: status, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DevicePluginError';
    this.code = code;
  }
}

/** A gRPC error object as grpc-js callbacks accept it: a message and a status code. */
export interface GrpcErrorObject {
  code: status;
  details: string;
  message: string;
}

const MAX_DETAILS = 1024;

function isStatusCode(code: unknown): code is status {
  return typeof code === 'number' && Number.isInteger(code) && code > 0 && code <= 16;
}

/**
 * Maps anything a hook threw to a gRPC error: a numeric `code` (DevicePluginError or any error carrying one)
 * is kept, everything else becomes INTERNAL; `context` prefixes the message so a pod event says where it came from.
 */
export function toGrpcError(error: unknown, context: string): GrpcErrorObject {
  const code = isStatusCode((error as { code?: unknown } | null)?.code)
    ? (error as { code: status }).code
    : status.INTERNAL;
  const raw = error instanceof Error ? error.message : String(error);
  const text = error instanceof DevicePluginError ? raw : `${context}: ${raw}`;
  const details = text.length > MAX_DETAILS ? `${text.slice(0, MAX_DETAILS)}…` : text;
  return { code, details, message: details };
}
