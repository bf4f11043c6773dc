// The web app's contract with the gateway, imported as `@accounts/web/contract` (the one entry of
// this package): what its server build hands over and takes back (page-data.ts), and the pages'
// forms by name (page-forms.ts), which the gateway's tests post without scripts.
export type { FormDone, FormOutcome, PageData, PageFormTarget, PageState, QueryCall, ServerEntry } from './page-data';
export { PAGE_FORMS, type PageFormName } from './page-forms';
