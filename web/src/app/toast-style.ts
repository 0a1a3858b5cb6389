import type { DefaultToastOptions } from 'react-hot-toast';

const base = {
  borderRadius: '8px',
  fontSize: '0.9375rem',
  lineHeight: '1.4',
  maxWidth: '380px',
  padding: '10px 14px',
  color: '#ffffff',
  boxShadow: '0 6px 20px rgba(16, 24, 40, 0.18)',
};

const colours = {
  success: '#15803d',
  error: '#b91c1c',
  info: '#1d4ed8',
  warning: '#b45309',
  neutral: '#1f2937',
  loading: '#334155',
};

/** 4 s by default, success green for 2 s, error red, loading until dismissed. */
export const toastOptions: DefaultToastOptions = {
  duration: 4000,
  style: { ...base, background: colours.neutral },
  success: {
    duration: 2000,
    style: { ...base, background: colours.success },
    iconTheme: { primary: '#ffffff', secondary: colours.success },
  },
  error: {
    duration: 4000,
    style: { ...base, background: colours.error },
    iconTheme: { primary: '#ffffff', secondary: colours.error },
  },
  loading: {
    duration: Infinity,
    style: { ...base, background: colours.loading },
    iconTheme: { primary: '#ffffff', secondary: colours.loading },
  },
};
