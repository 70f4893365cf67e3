import type { ChannelOptions } from '@grpc/grpc-js';

/**
 * Options every kdp gRPC server and client is made with: channelz off. kdp serves no channelz service, and
 * grpc-js's channelz bookkeeping (per-call counters, a trace per server and socket, its own stream handler)
 * costs CPU on every call and at start.
 */
export const GRPC_CHANNEL_OPTIONS: Readonly<ChannelOptions> = Object.freeze({ 'grpc.enable_channelz': 0 });
