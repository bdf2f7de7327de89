import { defaultSettings, type PageLocale } from '../preference-centre/index.js';
import { pageHeaders } from './frame.js';
import type { PageFrame } from './views.js';

/** The frame of a page shown before any tenant is known (an error): the service's own look. */
export function messageFrame(locale: PageLocale): PageFrame {
  return { locale, name: '', settings: defaultSettings, zone: 'UTC' };
}

export const defaultPageHeaders = pageHeaders(defaultSettings);
