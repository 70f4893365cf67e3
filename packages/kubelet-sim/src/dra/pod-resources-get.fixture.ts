import { credentials } from '@grpc/grpc-js';
import { podresources } from '@kdp/api';
import { callUnary } from '../grpc-util';

/** One pod-resources `Get` of pod `name` in `default` on `socket`, as a monitor calls it. */
export async function getPodResources(
  socket: string,
  name: string,
): Promise<podresources.PodResources | undefined> {
  const client = new podresources.PodResourcesListerClient(`unix://${socket}`, credentials.createInsecure());
  try {
    const { podResources } = await callUnary(
      client,
      client.get,
      { podName: name, podNamespace: 'default' },
      5000,
    );
    return podResources;
  } finally {
    client.close();
  }
}
