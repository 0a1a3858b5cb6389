import type { audioSettingsRpc, RpcRequest, RpcResponse } from '@chronicler/contracts';
import type { AudioStore } from '../db/audio-store.ts';

/**
 * svc.transcript.audio-settings: the owner's retention and storage; with `retention_days`,
 * sets it first (the gateway checked its range) and applies it at once, so a shorter
 * retention frees the storage it says it frees.
 */
export const audioSettings =
  (audio: AudioStore, applyRetention: () => Promise<unknown>) =>
  async (req: RpcRequest<typeof audioSettingsRpc>): Promise<RpcResponse<typeof audioSettingsRpc>> => {
    if (req.retention_days !== undefined) {
      await audio.setRetention(req.owner_id, req.retention_days);
      await applyRetention();
    }
    return audio.settingsOf(req.owner_id);
  };
