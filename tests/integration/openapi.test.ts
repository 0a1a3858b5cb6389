import { GROUP_NAME_MAX } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

interface Operation {
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody?: {
    content: Record<string, { schema: { properties?: Record<string, Record<string, unknown>> } }>;
  };
  responses?: Record<string, unknown>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, unknown>> };
  security: Record<string, unknown[]>[];
}

describe(`OpenAPI document and reference page (${testMode} mode)`, () => {
  let system: TestSystem;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    system = await startSystem();
    const res = await fetch(`${system.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as OpenApiDocument;
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('GET /api/openapi.json answers an OpenAPI 3.1 document without sign-in', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBe('Chronicler API');
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('lists the main routes under their /api paths, with {id} path parameters', () => {
    expect(Object.keys(doc.paths['/api/transcripts']!)).toContain('get');
    expect(Object.keys(doc.paths['/api/groups']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/transcripts/{id}']!).sort()).toEqual(['delete', 'get', 'put']);
    expect(doc.paths['/api/groups/{id}']!.put!.parameters).toContainEqual(
      expect.objectContaining({ name: 'id', in: 'path' }),
    );
    expect(doc.paths['/api/users/stats']!.get!.parameters!.map((p) => p.name).sort()).toEqual([
      'end',
      'start',
    ]);
    expect(doc.paths['/api/auth/local']!.post).toBeDefined();
    expect(doc.paths['/api/chat']!.post).toBeDefined();
  });

  it('describes request bodies with the limits the gateway enforces', () => {
    const create = doc.paths['/api/groups']!.post!.requestBody!.content['application/json']!.schema;
    expect(create.properties!.name).toMatchObject({ type: 'string', maxLength: GROUP_NAME_MAX });
    const manual =
      doc.paths['/api/transcripts/manual']!.post!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(manual.properties!).sort()).toEqual([
      'group_id',
      'name',
      'session_date',
      'summary',
      'transcript',
    ]);
  });

  it('names the cookie, the bearer token and the auth-token header as ways to sign in', () => {
    expect(doc.components.securitySchemes).toEqual({
      cookie: { type: 'apiKey', in: 'cookie', name: 'access_token' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      authToken: { type: 'apiKey', in: 'header', name: 'auth-token' },
    });
    expect(doc.security).toEqual([{ cookie: [] }, { bearer: [] }, { authToken: [] }]);
    // Public routes say they need no sign-in; the others inherit the document's requirement.
    expect(doc.paths['/api/health']!.get!.security).toEqual([]);
    expect(doc.paths['/api/groups']!.post!.security).toBeUndefined();
  });

  it('leaves out the sockets and its own documentation routes', () => {
    const paths = Object.keys(doc.paths);
    expect(paths.filter((p) => p.startsWith('/api/ws/'))).toEqual([]);
    expect(paths.filter((p) => p.startsWith('/api/docs') || p === '/api/openapi.json')).toEqual([]);
  });

  it('GET /api/docs answers the browsable reference page, and its assets, without sign-in', async () => {
    const res = await fetch(`${system.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('swagger-ui-bundle.js');
    const bundle = await fetch(`${system.url}/api/docs/static/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(0);
  });
});
