import { defineService, packageVersion } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';

export default defineService({
  name: 'chat',
  version: packageVersion(import.meta.url),
  config: Type.Object({}),
  async start() {},
});
