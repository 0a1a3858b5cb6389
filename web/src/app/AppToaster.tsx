import { Toaster } from 'react-hot-toast';
import { toastOptions } from './toast-style.ts';

// react-hot-toast keeps at most 20 toasts (its built-in limit), which is the limit the
// specification asks for.
export function AppToaster() {
  return <Toaster position="top-right" toastOptions={toastOptions} containerStyle={{ top: 16, right: 16 }} />;
}
