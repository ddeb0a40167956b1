// The one script of the gjkd pages: reads the page's data and draws the page it names.
import { pageData } from './common.js';
import { viewPage } from './view.js';
import { tracePage } from './trace.js';

function start() {
  const data = pageData();
  if (data.page === 'view') viewPage(data);
  else if (data.page === 'trace') tracePage(data);
  else throw new Error(`gjkd page: unknown page "${data.page}"`);
  document.body.dataset.ready = '1';
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
