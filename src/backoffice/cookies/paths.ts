import { segment } from '../web/html.js';

/** The cookie pages' paths below `basePath`. */
export const systemPath = (scope: string) => `/cookies/systems/${segment(scope)}`;
export const configurationPath = (id: string) => `/cookies/configurations/${segment(id)}`;
export const scansPath = (scope: string) => `${systemPath(scope)}/scans`;
export const scanPath = (scope: string, id: string) => `${scansPath(scope)}/${segment(id)}`;
export const classificationPath = '/cookies/classification';
export const analyticsPath = (scope: string) => `${systemPath(scope)}/analytics`;
