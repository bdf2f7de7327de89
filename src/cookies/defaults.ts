import type { BannerTexts, CategoryTexts } from './banner-config.js';
import { type ConfigurationContent, defaultLifetimeDays } from './content.js';

/**
 * The texts a new configuration starts with, in English and Thai, so that a banner made from the
 * command line is usable as it is; the back-office edits them.
 */
/**
 * What the first layer says under Global Privacy Control, which starts the categories `marketing`
 * and `personalization` off (banner/main.ts): naming only those the configuration has.
 */
const gpcNotes = {
  en: {
    both: 'Your browser sends Global Privacy Control, so marketing and personalization cookies start off.',
    marketing: 'Your browser sends Global Privacy Control, so marketing cookies start off.',
    personalization:
      'Your browser sends Global Privacy Control, so personalization cookies start off.',
  },
  th: {
    both: 'เบราว์เซอร์ของคุณส่งสัญญาณ Global Privacy Control เราจึงปิดคุกกี้เพื่อการตลาดและคุกกี้เพื่อปรับเนื้อหาให้เหมาะกับคุณไว้ก่อน',
    marketing: 'เบราว์เซอร์ของคุณส่งสัญญาณ Global Privacy Control เราจึงปิดคุกกี้เพื่อการตลาดไว้ก่อน',
    personalization:
      'เบราว์เซอร์ของคุณส่งสัญญาณ Global Privacy Control เราจึงปิดคุกกี้เพื่อปรับเนื้อหาให้เหมาะกับคุณไว้ก่อน',
  },
} as const;

const bannerTexts: Record<'en' | 'th', BannerTexts> = {
  en: {
    title: 'We use cookies',
    body: 'We use cookies that the site needs to work, and, with your consent, others to measure its use, remember your choices and show relevant offers. You can change your choice at any time.',
    accept_all: 'Accept all',
    reject_all: 'Reject all',
    preferences: 'Preferences',
    save: 'Save my choices',
    preferences_title: 'Cookie preferences',
    gpc_note: gpcNotes.en.both,
    policy_label: 'Cookie policy',
    policy_url: '',
    close: 'Close',
    held_content: 'This content is shown once you allow {category} cookies.',
    allow_category: 'Allow {category}',
    settings: 'Cookie settings',
    declaration: 'Cookies used',
  },
  th: {
    title: 'เราใช้คุกกี้',
    body: 'เราใช้คุกกี้ที่จำเป็นต่อการทำงานของเว็บไซต์ และเมื่อคุณยินยอม จะใช้คุกกี้อื่นเพื่อวัดการใช้งาน จดจำการตั้งค่า และแสดงข้อเสนอที่ตรงกับคุณ คุณเปลี่ยนการตั้งค่าได้ทุกเมื่อ',
    accept_all: 'ยอมรับทั้งหมด',
    reject_all: 'ปฏิเสธทั้งหมด',
    preferences: 'ตั้งค่า',
    save: 'บันทึกการตั้งค่า',
    preferences_title: 'การตั้งค่าคุกกี้',
    gpc_note: gpcNotes.th.both,
    policy_label: 'นโยบายคุกกี้',
    policy_url: '',
    close: 'ปิด',
    held_content: 'เนื้อหานี้จะแสดงเมื่อคุณอนุญาต{category}',
    allow_category: 'อนุญาต{category}',
    settings: 'ตั้งค่าคุกกี้',
    declaration: 'คุกกี้ที่ใช้',
  },
};

const categoryTexts: Record<string, Record<'en' | 'th', CategoryTexts>> = {
  necessary: {
    en: { name: 'Necessary', description: 'Needed for the site to work; they cannot be off.' },
    th: { name: 'คุกกี้ที่จำเป็น', description: 'จำเป็นต่อการทำงานของเว็บไซต์ จึงปิดไม่ได้' },
  },
  analytics: {
    en: { name: 'Analytics', description: 'Measure how the site is used, to improve it.' },
    th: {
      name: 'คุกกี้เพื่อการวิเคราะห์',
      description: 'วัดการใช้งานเว็บไซต์เพื่อนำไปปรับปรุง',
    },
  },
  marketing: {
    en: {
      name: 'Marketing',
      description: 'Show offers that match your interests, here and elsewhere.',
    },
    th: {
      name: 'คุกกี้เพื่อการตลาด',
      description: 'แสดงข้อเสนอที่ตรงกับความสนใจของคุณ ทั้งบนเว็บไซต์นี้และที่อื่น',
    },
  },
  functional: {
    en: { name: 'Functional', description: 'Remember your settings, such as your language.' },
    th: { name: 'คุกกี้เพื่อการใช้งาน', description: 'จดจำการตั้งค่าของคุณ เช่น ภาษา' },
  },
  personalization: {
    en: { name: 'Personalization', description: 'Tailor content and suggestions to you.' },
    th: {
      name: 'คุกกี้เพื่อปรับเนื้อหาให้เหมาะกับคุณ',
      description: 'ปรับเนื้อหาและคำแนะนำให้ตรงกับคุณ',
    },
  },
};

/**
 * The GPC note naming the categories GPC turns off that `keys` has. With neither, the banner
 * shows no note (GPC changes nothing on it), and the text, which may not be empty, names both.
 */
function gpcNote(locale: 'en' | 'th', keys: readonly string[]): string {
  const marketing = keys.includes('marketing');
  const personalization = keys.includes('personalization');
  if (marketing && personalization) return gpcNotes[locale].both;
  if (marketing) return gpcNotes[locale].marketing;
  if (personalization) return gpcNotes[locale].personalization;
  return gpcNotes[locale].both;
}

/**
 * A new configuration's content: `necessary` and the categories named (the tenant's own get
 * their key as their name), English first, a bar at the bottom, a year's lifetime.
 */
export function defaultContent(categories: readonly string[]): ConfigurationContent {
  const keys = ['necessary', ...categories.filter((key) => key !== 'necessary')];
  return {
    default_locale: 'en',
    lifetime_days: defaultLifetimeDays,
    categories: keys.map((key) => ({
      key,
      required: key === 'necessary',
      texts: categoryTexts[key] ?? {
        en: { name: key, description: '' },
        th: { name: key, description: '' },
      },
    })),
    texts: {
      en: { ...bannerTexts.en, gpc_note: gpcNote('en', keys) },
      th: { ...bannerTexts.th, gpc_note: gpcNote('th', keys) },
    },
    layout: {
      kind: 'bar',
      position: 'bottom',
      colors: { background: '#ffffff', text: '#1f2933', accent: '#0b5cad' },
    },
  };
}
