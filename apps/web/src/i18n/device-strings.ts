// A device or an address not known, as the devices page and the activity page say it.
import { createTranslator, useTranslator, type StringTables } from './index';

const en = {
  sessionsUnknownDevice: 'Unknown device',
  sessionsUnknownAddress: 'Address unknown',
} as const;

export type DeviceKey = keyof typeof en;

const de: Record<DeviceKey, string> = {
  sessionsUnknownDevice: 'Unbekanntes Gerät',
  sessionsUnknownAddress: 'Adresse unbekannt',
};

const fr: Record<DeviceKey, string> = {
  sessionsUnknownDevice: 'Appareil inconnu',
  sessionsUnknownAddress: 'Adresse inconnue',
};

export const DEVICE_STRINGS: StringTables<DeviceKey> = { en, de, fr };
const translateDevice = createTranslator(DEVICE_STRINGS);

/** The words of an unknown device or address in the page's language: `(key, params)`. */
export const useDeviceText = () => useTranslator(translateDevice);
