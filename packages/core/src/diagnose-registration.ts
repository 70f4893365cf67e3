import type { ReregistrationReason } from './plugin-events';
import type { ResourceSocket } from './resource-socket';
import { sameSocket, socketIdentity, type SocketIdentity } from './socket-identity';

/** What {@link diagnoseRegistration} looks at. */
export interface RegistrationProbe {
  readonly mode: 'kubelet' | 'plugin-watcher';
  readonly kubeletSocket: string;
  /** The kubelet socket the registration was made with (kubelet mode). */
  readonly kubeletAtRegister: SocketIdentity | undefined;
  readonly socketPath: string;
  readonly socket: ResourceSocket;
}

/** Looks at every signal; resolves with why the registration is lost, or undefined while it holds. */
export async function diagnoseRegistration(
  probe: RegistrationProbe,
): Promise<ReregistrationReason | undefined> {
  const { socket } = probe;
  if (probe.mode === 'kubelet') {
    const kubelet = await socketIdentity(probe.kubeletSocket);
    if (kubelet === undefined) return 'kubelet-gone';
    if (!sameSocket(kubelet, probe.kubeletAtRegister)) return 'kubelet-restarted';
  } else if (socket.watcherStatus()?.registered === false) {
    return 'rejected-by-kubelet';
  }
  if (!sameSocket(await socketIdentity(probe.socketPath), socket.bound())) return 'socket-deleted';
  const current = socket.server();
  if (current !== undefined && current.streamsOpened() > 0 && current.openStreams() === 0)
    return 'stream-cancelled';
  return undefined;
}
