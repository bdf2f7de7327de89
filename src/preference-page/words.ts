import type { PageLocale } from '../preference-centre/index.js';
import type { RequestKind } from '../requests/index.js';

/** Every word the customer's page says, in each locale it speaks. */
export interface Words {
  title: string;
  skip: string;
  intro: string;
  consents: string;
  noConsents: string;
  agreed: string;
  rejected: string;
  withdrew: string;
  newVersion: string;
  expired: string;
  expires: string;
  readText: string;
  readEarlier: string;
  version: string;
  agree: string;
  withdraw: string;
  withdrawTitle: string;
  withdrawQuestion: string;
  withdrawConfirm: string;
  cancel: string;
  partners: string;
  partnersIntro: string;
  shared: string;
  blockedPartner: string;
  blockPartner: string;
  allowPartner: string;
  channels: string;
  channelsIntro: string;
  channel: string;
  state: string;
  allowed: string;
  blocked: string;
  block: string;
  allow: string;
  /** The customer's cookie choices made while signed in to one of the tenant's websites. */
  cookies: string;
  cookiesIntro: string;
  cookiesChosen: string;
  cookieCategory: string;
  cookieAllowed: string;
  cookieRefused: string;
  records: string;
  recordsIntro: string;
  when: string;
  record: string;
  receipt: string;
  noRecords: string;
  downloadPack: string;
  back: string;
  signOut: string;
  signedOut: string;
  signedOutText: string;
  recorded: string;
  unchanged: string;
  nothingToWithdraw: string;
  reconsentNotAllowed: string;
  /** The separate confirmation of a consent to sensitive data: recorded as the text shown. */
  explicitConfirm: string;
  explicitConsentRequired: string;
  /** A template whose rule names who may decide for whom (PDPA section 20): not decided here. */
  representationRefused: string;
  refused: string;
  noPack: string;
  packNotReady: string;
  kindDecision: Record<'given' | 'reject' | 'withdraw', string>;
  kindChannel: (blocked: boolean) => string;
  kindPartner: (blocked: boolean) => string;
  linkRefused: string;
  linkReused: string;
  linkExpired: string;
  linkInvalid: string;
  sessionEnded: string;
  sessionEndedText: string;
  notFound: string;
  notFoundText: string;
  badRequest: string;
  badRequestText: string;
  failed: string;
  failedText: (reference: string) => string;
  language: string;
  signInTitle: string;
  signInIntro: string;
  emailLabel: string;
  sendCode: string;
  notAnAddress: string;
  codeTitle: string;
  codeSent: string;
  codeLabel: string;
  signIn: string;
  notACode: string;
  wrongCode: string;
  codeRefused: string;
  codeRefusedText: string;
  askNewCode: string;
  tooMany: string;
  tooManyText: string;
  mailSubject: (name: string) => string;
  mailText: (name: string, code: string) => string;
  /** Data-subject requests (PDPA sections 30-36). */
  requests: string;
  requestsIntro: string;
  requestKind: string;
  requestKinds: Record<RequestKind, string>;
  requestDetails: string;
  sendRequest: string;
  noRequests: string;
  requestStatus: Record<string, string>;
  receivedOn: string;
  dueOn: string;
  requestOpened: string;
}

const en: Words = {
  title: 'Your privacy choices',
  skip: 'Skip to content',
  intro:
    'See what you agreed to, change your mind at any time, and choose how we may contact you. Every change is recorded with a receipt.',
  consents: 'Your consents',
  noConsents: 'You have not been asked for any consent yet.',
  agreed: 'You agreed on',
  rejected: 'You declined on',
  withdrew: 'You withdrew on',
  newVersion: 'There is a new version for you to read.',
  expired: 'Your consent expired on',
  expires: 'Your consent lasts until',
  readText: 'Read the text',
  readEarlier: 'Read the text you decided on',
  version: 'version',
  agree: 'I agree',
  withdraw: 'Withdraw consent',
  withdrawTitle: 'Withdraw your consent',
  withdrawQuestion: 'Do you want to withdraw your consent to',
  withdrawConfirm: 'Yes, withdraw',
  cancel: 'Keep my consent',
  partners: 'Partners',
  partnersIntro:
    'With your consent, we may share your data with these partners. You can stop any of them.',
  shared: 'Sharing allowed',
  blockedPartner: 'Sharing stopped',
  blockPartner: 'Stop sharing with',
  allowPartner: 'Allow sharing with',
  channels: 'How we may contact you',
  channelsIntro: 'Every channel is allowed until you block it, for each of our products.',
  channel: 'Channel',
  state: 'State',
  allowed: 'Allowed',
  blocked: 'Blocked',
  block: 'Block',
  allow: 'Allow',
  cookies: 'Cookies on our websites',
  cookiesIntro:
    'What you last chose in the cookie banner of each of our websites while signed in. To change it, use the cookie settings on that website.',
  cookiesChosen: 'You chose on',
  cookieCategory: 'Category',
  cookieAllowed: 'Allowed',
  cookieRefused: 'Refused',
  records: 'Your records',
  recordsIntro:
    'Each of your decisions and changes has a receipt that proves it was recorded. The evidence pack holds them all, with the texts you saw.',
  when: 'When',
  record: 'Record',
  receipt: 'Receipt id',
  noRecords: 'Nothing has been recorded for you yet.',
  downloadPack: 'Download my evidence pack',
  back: 'Back to',
  signOut: 'Sign out',
  signedOut: 'You have signed out',
  signedOutText: 'To come back, open a new link from where you found this one.',
  recorded: 'Recorded. Receipt id',
  unchanged: 'Nothing changed: it was already so.',
  nothingToWithdraw: 'There is no consent to withdraw.',
  reconsentNotAllowed: 'This version cannot be agreed to again.',
  explicitConfirm:
    'I explicitly consent to the processing of the sensitive personal data described in this text.',
  explicitConsentRequired:
    'This consent covers sensitive data: tick the box to confirm it explicitly.',
  representationRefused:
    'This consent is given with the person who acts for you (a parent or guardian): ask the company that sent you this page.',
  refused: 'This change could not be made.',
  noPack: 'There is no record of you yet to put in an evidence pack.',
  packNotReady: 'Your latest records are still being written. Try again in a moment.',
  kindDecision: { given: 'Agreed to', reject: 'Declined', withdraw: 'Withdrew' },
  kindChannel: (blocked) => (blocked ? 'Blocked' : 'Allowed'),
  kindPartner: (blocked) => (blocked ? 'Stopped sharing with' : 'Allowed sharing with'),
  linkRefused: 'This link cannot be opened',
  linkReused:
    'This link has already been used: each link opens once. Ask for a new one where you found it.',
  linkExpired: 'This link has expired. Ask for a new one where you found it.',
  linkInvalid: 'This link is not valid. Ask for a new one where you found it.',
  sessionEnded: 'Your session has ended',
  sessionEndedText:
    'For your safety, the page closes after a while. Open a new link from where you found this one.',
  notFound: 'Not found',
  notFoundText: 'This page does not exist, or it is not yours.',
  badRequest: 'The request was not understood',
  badRequestText: 'Go back, reload the page and try again.',
  failed: 'Something went wrong',
  failedText: (reference) => `Please try again later. Reference: ${reference}.`,
  language: 'English',
  signInTitle: 'Sign in with your e-mail address',
  signInIntro:
    'Enter the e-mail address you gave us. If we know it, we send you a code that opens your privacy choices.',
  emailLabel: 'E-mail address',
  sendCode: 'Send me a code',
  notAnAddress: 'Enter an e-mail address, such as name@example.com.',
  codeTitle: 'Enter your code',
  codeSent: 'If this address is known, a code was sent to it. The code is valid for 10 minutes.',
  codeLabel: 'Code (6 digits)',
  signIn: 'Sign in',
  notACode: 'Enter the 6 digits of the code.',
  wrongCode: 'This code is not right. Try again.',
  codeRefused: 'This code cannot be used',
  codeRefusedText:
    'The code has expired, has been used, or was entered wrongly too many times. Ask for a new code.',
  askNewCode: 'Ask for a new code',
  tooMany: 'Too many codes',
  tooManyText: 'Too many codes were asked for this address. Try again later.',
  mailSubject: (name) => `Your code for ${name}`,
  mailText: (name, code) =>
    `Your code to open your privacy choices at ${name} is:\n\n  ${code}\n\nIt is valid for 10 minutes. If you did not ask for it, ignore this e-mail.\n`,
  requests: 'Your requests',
  requestsIntro:
    'You may ask us to see your data and get a copy, to send it on, to stop using it, to erase, restrict or correct it, or to withdraw a consent. We answer within 30 days.',
  requestKind: 'What you ask for',
  requestKinds: {
    access: 'A copy of my data',
    portability: 'My data in a machine-readable form',
    objection: 'Stop using my data (objection)',
    erasure: 'Erase my data',
    restriction: 'Restrict the use of my data',
    rectification: 'Correct my data',
    withdrawal: 'Withdraw a consent',
  },
  requestDetails: 'Anything we should know (optional)',
  sendRequest: 'Send my request',
  noRequests: 'You have not made a request.',
  requestStatus: {
    received: 'Received',
    identity_checked: 'Being checked',
    in_progress: 'In progress',
    extended: 'Extended',
    done: 'Done',
    refused: 'Refused',
  },
  receivedOn: 'Received',
  dueOn: 'Answer due by',
  requestOpened: 'Your request was received. We will answer it by the date shown below.',
};

const th: Words = {
  title: 'การตั้งค่าความเป็นส่วนตัวของคุณ',
  skip: 'ข้ามไปยังเนื้อหา',
  intro:
    'ดูสิ่งที่คุณได้ให้ความยินยอมไว้ เปลี่ยนใจได้ทุกเมื่อ และเลือกช่องทางที่เราติดต่อคุณได้ ทุกการเปลี่ยนแปลงจะถูกบันทึกพร้อมใบรับรอง',
  consents: 'ความยินยอมของคุณ',
  noConsents: 'ยังไม่มีการขอความยินยอมจากคุณ',
  agreed: 'คุณให้ความยินยอมเมื่อ',
  rejected: 'คุณปฏิเสธเมื่อ',
  withdrew: 'คุณถอนความยินยอมเมื่อ',
  newVersion: 'มีฉบับใหม่ให้คุณอ่าน',
  expired: 'ความยินยอมของคุณหมดอายุเมื่อ',
  expires: 'ความยินยอมของคุณมีผลถึง',
  readText: 'อ่านข้อความ',
  readEarlier: 'อ่านข้อความที่คุณตัดสินใจไว้',
  version: 'ฉบับ',
  agree: 'ยินยอม',
  withdraw: 'ถอนความยินยอม',
  withdrawTitle: 'ถอนความยินยอมของคุณ',
  withdrawQuestion: 'คุณต้องการถอนความยินยอมสำหรับ',
  withdrawConfirm: 'ใช่ ถอนความยินยอม',
  cancel: 'คงความยินยอมไว้',
  partners: 'พันธมิตร',
  partnersIntro: 'เมื่อคุณให้ความยินยอม เราอาจแบ่งปันข้อมูลของคุณกับพันธมิตรเหล่านี้ คุณหยุดการแบ่งปันกับรายใดก็ได้',
  shared: 'อนุญาตให้แบ่งปัน',
  blockedPartner: 'หยุดแบ่งปันแล้ว',
  blockPartner: 'หยุดแบ่งปันกับ',
  allowPartner: 'อนุญาตให้แบ่งปันกับ',
  channels: 'ช่องทางที่เราติดต่อคุณได้',
  channelsIntro: 'ทุกช่องทางได้รับอนุญาตจนกว่าคุณจะระงับ แยกตามผลิตภัณฑ์ของเรา',
  channel: 'ช่องทาง',
  state: 'สถานะ',
  allowed: 'อนุญาต',
  blocked: 'ระงับแล้ว',
  block: 'ระงับ',
  allow: 'อนุญาต',
  cookies: 'คุกกี้บนเว็บไซต์ของเรา',
  cookiesIntro:
    'ตัวเลือกล่าสุดที่คุณเลือกในแบนเนอร์คุกกี้ของเว็บไซต์แต่ละแห่งของเราขณะเข้าสู่ระบบ หากต้องการเปลี่ยน ให้ใช้การตั้งค่าคุกกี้บนเว็บไซต์นั้น',
  cookiesChosen: 'คุณเลือกเมื่อ',
  cookieCategory: 'หมวดหมู่',
  cookieAllowed: 'อนุญาต',
  cookieRefused: 'ปฏิเสธ',
  records: 'บันทึกของคุณ',
  recordsIntro:
    'ทุกการตัดสินใจและการเปลี่ยนแปลงของคุณมีใบรับรองที่พิสูจน์ว่าได้ถูกบันทึกไว้ ชุดหลักฐานรวมทุกรายการไว้พร้อมข้อความที่คุณได้เห็น',
  when: 'เมื่อ',
  record: 'รายการ',
  receipt: 'รหัสใบรับรอง',
  noRecords: 'ยังไม่มีบันทึกของคุณ',
  downloadPack: 'ดาวน์โหลดชุดหลักฐานของฉัน',
  back: 'กลับไปยัง',
  signOut: 'ออกจากระบบ',
  signedOut: 'คุณออกจากระบบแล้ว',
  signedOutText: 'หากต้องการกลับมา ให้เปิดลิงก์ใหม่จากที่ที่คุณพบลิงก์นี้',
  recorded: 'บันทึกแล้ว รหัสใบรับรอง',
  unchanged: 'ไม่มีการเปลี่ยนแปลง: เป็นเช่นนั้นอยู่แล้ว',
  nothingToWithdraw: 'ไม่มีความยินยอมให้ถอน',
  reconsentNotAllowed: 'ฉบับนี้ไม่สามารถให้ความยินยอมซ้ำได้',
  explicitConfirm: 'ข้าพเจ้าให้ความยินยอมโดยชัดแจ้งในการประมวลผลข้อมูลส่วนบุคคลที่มีความอ่อนไหวตามที่ระบุในข้อความนี้',
  explicitConsentRequired: 'ความยินยอมนี้เกี่ยวกับข้อมูลที่มีความอ่อนไหว กรุณาทำเครื่องหมายในช่องเพื่อยืนยันโดยชัดแจ้ง',
  representationRefused:
    'ความยินยอมนี้ต้องให้โดยผู้ที่ทำการแทนคุณ (ผู้ใช้อำนาจปกครองหรือผู้อนุบาล) กรุณาติดต่อบริษัทที่ส่งหน้านี้ให้คุณ',
  refused: 'ไม่สามารถทำการเปลี่ยนแปลงนี้ได้',
  noPack: 'ยังไม่มีบันทึกของคุณที่จะใส่ในชุดหลักฐาน',
  packNotReady: 'บันทึกล่าสุดของคุณกำลังถูกเขียน โปรดลองอีกครั้งในอีกสักครู่',
  kindDecision: { given: 'ให้ความยินยอม', reject: 'ปฏิเสธ', withdraw: 'ถอนความยินยอม' },
  kindChannel: (blocked) => (blocked ? 'ระงับ' : 'อนุญาต'),
  kindPartner: (blocked) => (blocked ? 'หยุดแบ่งปันกับ' : 'อนุญาตให้แบ่งปันกับ'),
  linkRefused: 'ไม่สามารถเปิดลิงก์นี้ได้',
  linkReused: 'ลิงก์นี้ถูกใช้ไปแล้ว: แต่ละลิงก์เปิดได้ครั้งเดียว โปรดขอลิงก์ใหม่จากที่ที่คุณพบลิงก์นี้',
  linkExpired: 'ลิงก์นี้หมดอายุแล้ว โปรดขอลิงก์ใหม่จากที่ที่คุณพบลิงก์นี้',
  linkInvalid: 'ลิงก์นี้ไม่ถูกต้อง โปรดขอลิงก์ใหม่จากที่ที่คุณพบลิงก์นี้',
  sessionEnded: 'เซสชันของคุณสิ้นสุดแล้ว',
  sessionEndedText: 'เพื่อความปลอดภัย หน้านี้จะปิดเมื่อไม่มีการใช้งานสักระยะ โปรดเปิดลิงก์ใหม่จากที่ที่คุณพบลิงก์นี้',
  notFound: 'ไม่พบหน้านี้',
  notFoundText: 'ไม่มีหน้านี้ หรือหน้านี้ไม่ใช่ของคุณ',
  badRequest: 'ไม่เข้าใจคำขอ',
  badRequestText: 'โปรดย้อนกลับ โหลดหน้าใหม่ แล้วลองอีกครั้ง',
  failed: 'เกิดข้อผิดพลาด',
  failedText: (reference) => `โปรดลองอีกครั้งภายหลัง รหัสอ้างอิง: ${reference}`,
  language: 'ไทย',
  signInTitle: 'เข้าสู่ระบบด้วยอีเมลของคุณ',
  signInIntro: 'กรอกอีเมลที่คุณให้ไว้กับเรา หากเรารู้จักอีเมลนี้ เราจะส่งรหัสสำหรับเปิดการตั้งค่าความเป็นส่วนตัวของคุณไปให้',
  emailLabel: 'อีเมล',
  sendCode: 'ส่งรหัสให้ฉัน',
  notAnAddress: 'โปรดกรอกอีเมล เช่น name@example.com',
  codeTitle: 'กรอกรหัสของคุณ',
  codeSent: 'หากเรารู้จักอีเมลนี้ เราได้ส่งรหัสไปยังอีเมลนี้แล้ว รหัสใช้ได้ 10 นาที',
  codeLabel: 'รหัส (6 หลัก)',
  signIn: 'เข้าสู่ระบบ',
  notACode: 'โปรดกรอกรหัส 6 หลัก',
  wrongCode: 'รหัสไม่ถูกต้อง โปรดลองอีกครั้ง',
  codeRefused: 'ไม่สามารถใช้รหัสนี้ได้',
  codeRefusedText: 'รหัสนี้หมดอายุ ถูกใช้ไปแล้ว หรือกรอกผิดเกินจำนวนครั้งที่กำหนด โปรดขอรหัสใหม่',
  askNewCode: 'ขอรหัสใหม่',
  tooMany: 'ขอรหัสมากเกินไป',
  tooManyText: 'มีการขอรหัสสำหรับอีเมลนี้มากเกินไป โปรดลองอีกครั้งภายหลัง',
  mailSubject: (name) => `รหัสของคุณสำหรับ ${name}`,
  mailText: (name, code) =>
    `รหัสสำหรับเปิดการตั้งค่าความเป็นส่วนตัวของคุณที่ ${name} คือ\n\n  ${code}\n\nรหัสนี้ใช้ได้ 10 นาที หากคุณไม่ได้ขอรหัสนี้ ไม่ต้องทำอะไร\n`,
  requests: 'คำขอของคุณ',
  requestsIntro:
    'คุณขอให้เราเข้าถึงและขอรับสำเนาข้อมูลของคุณ ส่งต่อข้อมูล คัดค้านการใช้ ลบ ระงับการใช้ หรือแก้ไขข้อมูล หรือถอนความยินยอมได้ เราจะตอบภายใน 30 วัน',
  requestKind: 'สิ่งที่คุณขอ',
  requestKinds: {
    access: 'ขอสำเนาข้อมูลของฉัน',
    portability: 'ขอรับข้อมูลของฉันในรูปแบบที่อ่านได้ด้วยเครื่อง',
    objection: 'คัดค้านการใช้ข้อมูลของฉัน',
    erasure: 'ลบข้อมูลของฉัน',
    restriction: 'ระงับการใช้ข้อมูลของฉัน',
    rectification: 'แก้ไขข้อมูลของฉันให้ถูกต้อง',
    withdrawal: 'ถอนความยินยอม',
  },
  requestDetails: 'รายละเอียดเพิ่มเติม (ไม่บังคับ)',
  sendRequest: 'ส่งคำขอ',
  noRequests: 'คุณยังไม่ได้ส่งคำขอ',
  requestStatus: {
    received: 'ได้รับแล้ว',
    identity_checked: 'กำลังตรวจสอบ',
    in_progress: 'กำลังดำเนินการ',
    extended: 'ขยายเวลา',
    done: 'เสร็จสิ้น',
    refused: 'ปฏิเสธ',
  },
  receivedOn: 'ได้รับเมื่อ',
  dueOn: 'ตอบภายใน',
  requestOpened: 'เราได้รับคำขอของคุณแล้ว และจะตอบภายในวันที่แสดงด้านล่าง',
};

export const words: Record<PageLocale, Words> = { en, th };
