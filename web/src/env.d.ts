/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Base path of the HTTP API; defaults to /api (same origin, behind the gateway). */
  readonly VITE_API_BASE?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
