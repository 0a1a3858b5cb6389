import { runStandalone } from '@chronicler/kit';
import service from './service.ts';

await runStandalone(service);
