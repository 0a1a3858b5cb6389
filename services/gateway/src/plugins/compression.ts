import compress from '@fastify/compress';
import fp from 'fastify-plugin';

/** Bodies smaller than this go out as they are: compressing them costs more than it saves. */
export const COMPRESS_THRESHOLD = 1024;

/**
 * Compresses responses of at least COMPRESS_THRESHOLD bytes in the encoding the client
 * accepts (Accept-Encoding; none: sent as is), with `Vary: Accept-Encoding`. A page of 100
 * sessions is tens of kilobytes of repetitive JSON (issue 16: a 516 KB list went out
 * uncompressed even when gzip was asked for). JSON, and the types mime-db calls
 * compressible (the API docs' HTML); not octet-stream, which @fastify/compress would add by
 * default (audio is compressed already). app.ts registers it for /api only: the web app's
 * assets are files @fastify/static serves with ranges and caching. Request bodies are not
 * decompressed: no client sends them compressed, and one that did would slip a body past
 * the body limits.
 */
export default fp(
  async (app) => {
    await app.register(compress, {
      threshold: COMPRESS_THRESHOLD,
      customTypes: /(?:\+|\/)json(?:;|$)/,
      globalDecompression: false,
    });
  },
  { name: 'compression' },
);
