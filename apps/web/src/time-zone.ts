import { createContext } from 'react';

// The time zone a page's times were said in on the server: the browser's, as its `time_zone`
// cookie told the gateway (PageData's timeZone); null: not told (UTC then). Here, apart from the
// formats that use it (relative-time.tsx), so the first script carries only this.
export const TimeZoneContext = createContext<string | null>(null);
