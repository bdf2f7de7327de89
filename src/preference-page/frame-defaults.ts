import type { PageLocale } from '../preference-centre/index.js';
import { pageHeaders } from './frame.js';
import type { PageFrame } from './views.js';

/** The frame of a page shown before any tenant is known (an error): the service's own look. */
export function messageFrame(locale: PageLocale): PageFrame {
  return {
    locale,
    name: '',
    settings: {
      displayName: null,
      logoUrl: null,
      accentColour: null,
      headerColour: null,
      allowedOrigins: [],
      emailKeyId: null,
    },
    zone: 'UTC',
  };
}

export const defaultPageHeaders = pageHeaders(messageFrame('en').settings);
