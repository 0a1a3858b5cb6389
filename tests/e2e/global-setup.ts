// @ts-expect-error: a plain .mjs module shared with `pnpm start`, no type declarations.
import { buildWebIfNeeded } from '../../scripts/build-web.mjs';

export default function setup(): void {
  if (!buildWebIfNeeded()) throw new Error('the web app did not build');
}
