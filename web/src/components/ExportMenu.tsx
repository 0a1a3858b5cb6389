import { useEffect, useRef, useState } from 'react';
import toast from 'react-hot-toast';
import { errorDetail } from '../api/http.ts';
import { downloadExport } from '../api/transcript-tools.ts';
import { ChevronDownIcon, DocumentIcon } from './icons.tsx';
import './export-menu.css';

export interface ExportChoice {
  format: string;
  label: string;
}

export const SESSION_EXPORTS: ExportChoice[] = [
  { format: 'md', label: 'Markdown (.md)' },
  { format: 'txt', label: 'Plain text (.txt)' },
  { format: 'srt', label: 'Subtitles, SubRip (.srt)' },
  { format: 'vtt', label: 'Subtitles, WebVTT (.vtt)' },
  { format: 'docx', label: 'Word document (.docx)' },
  { format: 'json', label: 'JSON (.json)' },
];

export const CAMPAIGN_EXPORTS: ExportChoice[] = [
  { format: 'md', label: 'Markdown, one file (.md)' },
  { format: 'zip', label: 'Zip, a file per session (.zip)' },
];

/**
 * 'Export' and a menu of formats; the chosen one downloads under the server's file name.
 * `basePath` is the export route without its query (`/transcripts/{id}/export`).
 */
export function ExportMenu({
  basePath,
  choices,
  label = 'Export',
}: {
  basePath: string;
  choices: ExportChoice[];
  label?: string;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const away = (event: MouseEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    const escape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('mousedown', away);
    document.addEventListener('keydown', escape);
    rootRef.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
    return () => {
      document.removeEventListener('mousedown', away);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);

  const choose = async (choice: ExportChoice) => {
    setOpen(false);
    setBusy(choice.format);
    try {
      const file = await downloadExport(`${basePath}?format=${choice.format}`, `export.${choice.format}`);
      if (file.untimedLines > 0) {
        toast(
          `${file.filename}: ${file.untimedLines} line${file.untimedLines === 1 ? '' : 's'} without a time have no subtitle.`,
        );
      } else {
        toast.success(`Downloaded ${file.filename}`);
      }
    } catch (cause) {
      console.error('Export failed', cause);
      toast.error(errorDetail(cause, 'Export failed'));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="export-menu" ref={rootRef}>
      <button
        type="button"
        className="button button-secondary"
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={busy !== null}
        onClick={() => setOpen((v) => !v)}
      >
        <DocumentIcon />
        {busy ? 'Exporting...' : label}
        <ChevronDownIcon />
      </button>
      {open ? (
        <div className="export-menu-list" role="menu" aria-label={`${label} as`}>
          {choices.map((choice) => (
            <button
              key={choice.format}
              type="button"
              role="menuitem"
              className="export-menu-item"
              onClick={() => void choose(choice)}
            >
              {choice.label}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
