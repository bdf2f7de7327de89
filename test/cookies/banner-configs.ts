/**
 * Banner configurations as the service would write them into the script: a shop's, with the
 * five categories (`necessary` and the four standard ones) and one of its own, in English and,
 * where asked, in Thai. Full texts, of the length a real site's legal team writes.
 */
import type {
  BannerCategory,
  BannerConfig,
  BannerTexts,
  CategoryTexts,
} from '../../src/cookies/banner-config.js';
import { bannerConfig, checkContent, defaultContent } from '../../src/cookies/index.js';

export const englishTexts: BannerTexts = {
  title: 'We value your privacy',
  body:
    'We use cookies and similar technologies to run this shop, to remember your settings, to ' +
    'measure how the site is used and to show you offers that fit your interests, on our pages ' +
    'and elsewhere. Choose "Accept all" to allow all of them, "Reject all" to allow only those ' +
    'the site cannot work without, or "Preferences" to choose by purpose. You can change your ' +
    'mind at any time from the "Cookie settings" link at the bottom of every page.',
  accept_all: 'Accept all',
  reject_all: 'Reject all',
  preferences: 'Preferences',
  save: 'Save my choices',
  preferences_title: 'Your cookie preferences',
  gpc_note:
    'Your browser sends a Global Privacy Control signal: marketing and personalization stay off ' +
    'unless you switch them on yourself.',
  policy_label: 'Read our cookie policy',
  policy_url: 'https://shop.example/legal/cookie-policy',
  close: 'Close',
};

export const thaiTexts: BannerTexts = {
  title: 'เราให้ความสำคัญกับความเป็นส่วนตัวของคุณ',
  body:
    'เราใช้คุกกี้และเทคโนโลยีที่คล้ายกันเพื่อให้ร้านค้านี้ทำงานได้ จดจำการตั้งค่าของคุณ ' +
    'วัดผลการใช้งานเว็บไซต์ และแสดงข้อเสนอที่ตรงกับความสนใจของคุณ เลือก "ยอมรับทั้งหมด" ' +
    'เพื่ออนุญาตทั้งหมด "ปฏิเสธทั้งหมด" เพื่ออนุญาตเฉพาะที่จำเป็น หรือ "การตั้งค่า" เพื่อเลือกตามวัตถุประสงค์',
  accept_all: 'ยอมรับทั้งหมด',
  reject_all: 'ปฏิเสธทั้งหมด',
  preferences: 'การตั้งค่า',
  save: 'บันทึกการเลือกของฉัน',
  preferences_title: 'การตั้งค่าคุกกี้ของคุณ',
  gpc_note: 'เบราว์เซอร์ของคุณส่งสัญญาณ Global Privacy Control: คุกกี้การตลาดและการปรับให้เหมาะกับคุณจะปิดอยู่',
  policy_label: 'อ่านนโยบายคุกกี้ของเรา',
  policy_url: 'https://shop.example/th/legal/cookie-policy',
  close: 'ปิด',
};

const english: Record<string, CategoryTexts> = {
  necessary: {
    name: 'Strictly necessary',
    description:
      'Keep the shop working: your basket, your sign-in, security and load balancing. They ' +
      'cannot be switched off, since the site does not work without them.',
  },
  analytics: {
    name: 'Analytics',
    description:
      'Count visits and measure how pages are used, so that we can find what is slow or ' +
      'confusing and improve it. The figures are aggregated and never sold.',
  },
  marketing: {
    name: 'Marketing',
    description:
      'Let our advertising partners show you our offers on other sites and measure how well ' +
      'our campaigns work, based on the pages you visited here.',
  },
  functional: {
    name: 'Functional',
    description:
      'Remember the choices you make, such as your language, region and recently viewed ' +
      'products, and power the live chat and embedded videos.',
  },
  personalization: {
    name: 'Personalization',
    description:
      'Tailor the products and articles we show you on this site to your interests, based on ' +
      'what you looked at and bought before.',
  },
  loyalty: {
    name: 'Loyalty programme',
    description:
      'Recognise you as a member of our loyalty programme on every visit so that your points ' +
      'and member prices are shown.',
  },
};

const thai: Record<string, CategoryTexts> = {
  necessary: { name: 'จำเป็นอย่างยิ่ง', description: 'ทำให้ร้านค้าทำงานได้ เช่น ตะกร้าสินค้าและการเข้าสู่ระบบ' },
  analytics: { name: 'การวิเคราะห์', description: 'นับการเข้าชมและวัดการใช้งานหน้าเว็บเพื่อปรับปรุง' },
  marketing: { name: 'การตลาด', description: 'ให้พันธมิตรโฆษณาแสดงข้อเสนอของเราบนเว็บไซต์อื่น' },
  functional: { name: 'การทำงาน', description: 'จดจำภาษาและภูมิภาคที่คุณเลือก' },
  personalization: { name: 'การปรับให้เหมาะกับคุณ', description: 'แสดงสินค้าที่ตรงกับความสนใจของคุณ' },
  loyalty: { name: 'โปรแกรมสมาชิก', description: 'แสดงคะแนนและราคาสมาชิกของคุณ' },
};

const keys = ['necessary', 'analytics', 'marketing', 'functional', 'personalization', 'loyalty'];

/** The shop's configuration in English only, with `changes` on top. */
export function shopConfig(changes: Partial<BannerConfig> = {}): BannerConfig {
  const categories: BannerCategory[] = keys.map((key) => ({
    key,
    required: key === 'necessary',
    texts: { en: english[key] as CategoryTexts },
  }));
  return {
    scope: 'shop',
    decisions_url: 'https://consent.example/cookies/v1/shop/choices',
    configuration: {
      id: '0b6f7c3e-52a4-4d8e-9a51-3c0f2d8e7a10',
      version: 3,
      fingerprint: 'f1a9c2',
    },
    lifetime_days: 180,
    gpc: false,
    default_locale: 'en',
    categories,
    texts: { en: englishTexts },
    layout: {
      kind: 'bar',
      position: 'bottom',
      colors: { background: '#ffffff', text: '#1b1b1f', accent: '#0b57d0' },
    },
    ...changes,
  };
}

/** The shop's configuration in English and Thai. */
export function bilingualConfig(changes: Partial<BannerConfig> = {}): BannerConfig {
  const config = shopConfig(changes);
  return {
    ...config,
    categories: config.categories.map((category) => ({
      ...category,
      texts: { ...category.texts, th: thai[category.key] as CategoryTexts },
    })),
    texts: { ...config.texts, th: thaiTexts },
  };
}

/**
 * The largest configuration of the fixtures: every standard category and two of the tenant's
 * own (one mapped onto a standard one), each refusable one listing the cookies it removes, the
 * built-in English and Thai texts with Thai the default, every optional text, a settings button.
 */
export function largestConfig(): BannerConfig {
  const content = checkContent({
    ...defaultContent([
      'analytics',
      'marketing',
      'functional',
      'personalization',
      'loyalty',
      'chat',
    ]),
    default_locale: 'th',
  });
  const cookies = (prefix: string) =>
    Array.from({ length: 8 }, (_, i) => ({ name: `${prefix}_${i}_*`, domain: '.shop.example' }));
  return bannerConfig(
    {
      ...content,
      categories: content.categories.map((c) =>
        c.key === 'necessary'
          ? c
          : {
              ...c,
              cookies: cookies(c.key),
              ...(c.key === 'chat' ? { maps_to: 'functional' as const } : {}),
            },
      ),
      layout: { ...content.layout, settings_button: 'bottom-right' },
    },
    {
      scope: 'cs_0123456789abcdef0123',
      decisions_url: 'https://consent.shop.example/cookies/v1/cs_0123456789abcdef0123/decisions',
      configuration: {
        id: '0b6f7c3e-52a4-4d8e-9a51-3c0f2d8e7a10',
        version: 12,
        fingerprint: 'c0ffee12c0ffee12',
      },
      gpc: true,
    },
  );
}
