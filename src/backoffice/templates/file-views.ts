import type { ContentFileRow } from '../../templates/index.js';
import { maxContentFileBytes } from '../../templates/index.js';
import { csrfField, formErrors } from '../web/forms.js';
import { type Html, html } from '../web/html.js';

/** What the version's page shows of its uploaded content file, and may do with it. */
export interface ContentFileModel {
  file: Pick<ContentFileRow, 'file_name' | 'media_type' | 'size' | 'sha256'> | undefined;
  /** Where the back-office shows the file (any status; the API serves it once live). */
  href: string;
  /** The upload and remove forms' path, when the user may change it (a draft, `versions:edit`). */
  action: string | undefined;
  csrfToken: string;
  error: string | undefined;
}

const typeWords = { 'application/pdf': 'PDF', 'text/html': 'HTML' } as const;

function size(bytes: number): string {
  return bytes < 1024 * 1024
    ? `${Math.ceil(bytes / 1024)} KiB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The section of a version's page about its uploaded content file. */
export function contentFileSection(o: ContentFileModel): Html {
  const { file } = o;
  if (!file && !o.action) return html``;
  return html`<section aria-labelledby="content-file">
<h2 id="content-file">Content file</h2>
${
  file
    ? html`<dl class="facts">
<dt>File</dt><dd><a href="${o.href}">${file.file_name}</a> (${typeWords[file.media_type]}, ${size(file.size)})</dd>
<dt>File SHA-256</dt><dd class="mono">${file.sha256}</dd>
</dl>`
    : html`<p>No file uploaded: the API's <code>file_url</code> is the URL given, or the text below (this locale's content) as an HTML page.</p>`
}
${
  o.action
    ? html`${formErrors(o.error ? [o.error] : [])}
<form method="post" action="${o.action}" enctype="multipart/form-data">${csrfField(o.csrfToken)}
<label for="file">${file ? 'Replace it with' : 'Upload'} a PDF or HTML file (at most ${maxContentFileBytes / 1024 / 1024} MiB)
<input type="file" id="file" name="file" accept="application/pdf,text/html,.pdf,.html,.htm" required${o.error ? html` aria-invalid="true"` : ''}>
</label>
<small>Its type is read from its content. Once uploaded it is the version's file: its <code>file_url</code> points at it, in place of any URL.</small>
<button type="submit">Upload</button>
</form>
${file ? html`<form method="post" action="${o.action}/remove">${csrfField(o.csrfToken)}<button type="submit" class="secondary">Remove the file</button></form>` : ''}`
    : ''
}
</section>`;
}
