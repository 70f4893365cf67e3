import { createApiServer, type ApiServer } from '../api-server/api-server';
import { createDraApiClient, DraApiError } from './dra-api-client';

describe('the DRA manager’s API client', () => {
  let api: ApiServer;
  beforeEach(async () => {
    api = await createApiServer({
      tls: true,
      token: 't0ken',
      nodes: ['node-a'],
      resourceApiVersions: ['v1beta1'],
    });
  });
  afterEach(() => api.close());

  it('reaches an HTTPS API server through its CA and token, in the resource.k8s.io version asked for', async () => {
    api.store.create(
      'resourceclaims',
      { metadata: { name: 'c1' }, spec: { devices: { requests: [] } } },
      'default',
    );
    const client = createDraApiClient({
      url: api.url,
      token: 't0ken',
      ...(api.caData === undefined ? {} : { caData: api.caData }),
      resourceApiVersion: 'v1beta1',
    });
    expect((await client.getClaim('default', 'c1')).metadata.name).toBe('c1');
    expect(await client.deleteSlices('node-a')).toBe(0);
    await expect(
      createDraApiClient({
        url: api.url,
        token: 't0ken',
        ...(api.caData === undefined ? {} : { caData: api.caData }),
      }).getClaim('default', 'c1'),
    ).rejects.toMatchObject({ code: 404 });
  });

  it('refuses a server whose certificate it cannot verify, and reports a wrong token as 401', async () => {
    await expect(createDraApiClient({ url: api.url, token: 't0ken' }).getNode('node-a')).rejects.toThrow(
      /self[- ]signed certificate/,
    );
    const wrong = createDraApiClient({
      url: api.url,
      token: 'nope',
      ...(api.caData === undefined ? {} : { caData: api.caData }),
    });
    await expect(wrong.getNode('node-a')).rejects.toBeInstanceOf(DraApiError);
    await expect(wrong.getNode('node-a')).rejects.toMatchObject({ code: 401 });
  });
});
