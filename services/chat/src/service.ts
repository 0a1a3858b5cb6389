import { AiConfigSchema, startAiEngine } from '@chronicler/ai';
import { chatAnswerRpc, chatAskRpc, chatHistoryRpc, chatSendRpc } from '@chronicler/contracts';
import { defineService, packageVersion, serve } from '@chronicler/kit';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChatStore } from './db/store.ts';
import { chatAnswer } from './handlers/answer.ts';
import { chatAsk } from './handlers/ask.ts';
import { chatHistory } from './handlers/history.ts';
import { chatSend } from './handlers/send.ts';

export default defineService({
  name: 'chat',
  version: packageVersion(import.meta.url),
  config: AiConfigSchema,
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new ChatStore(ctx.db, ctx.schema);
    const engine = await startAiEngine(ctx.config, { bus: ctx.bus, coord: ctx.coord, logger: ctx.logger });
    const deps = { bus: ctx.bus, engine };
    const subs = [
      serve(ctx.bus, chatHistoryRpc, chatHistory(store, ctx.bus)),
      serve(ctx.bus, chatSendRpc, chatSend(store, deps)),
      serve(ctx.bus, chatAnswerRpc, chatAnswer(deps)),
      serve(ctx.bus, chatAskRpc, chatAsk(deps)),
    ];
    return {
      async stop() {
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
