/** The pages' markup helpers live in the platform, shared with the customer's preference page. */
export { Html, type HtmlValue, html, segment, trusted } from '../../platform/html.js';
