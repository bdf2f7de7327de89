/** The section 39 record's words, in the two languages its printable document is made in. */
export interface RecordWords {
  title: string;
  asOf: string;
  generated: string;
  controller: string;
  name: string;
  address: string;
  contact: string;
  dpo: string;
  security: string;
  purposes: string;
  purpose: string;
  basis: string;
  bases: Record<'consent' | 'explicit_consent', string>;
  data: string;
  noSensitive: string;
  retention: string;
  untilWithdrawn: string;
  months: (n: number) => string;
  recipients: string;
  none: string;
  abroad: string;
  channels: string;
  refusals: string;
  noRefusals: string;
  kind: string;
  refusedOn: string;
  ground: string;
  reason: string;
  notFilled: string;
  liveSince: string;
  version: string;
}

export const recordWords: Record<'en' | 'th', RecordWords> = {
  en: {
    title: 'Record of processing activities (PDPA section 39)',
    asOf: 'As of the end of',
    generated: 'Generated',
    controller: 'Data controller',
    name: 'Name',
    address: 'Address',
    contact: 'Contact',
    dpo: 'Data protection officer',
    security: 'Security measures (section 37(1))',
    purposes: 'Purposes of processing',
    purpose: 'Purpose',
    basis: 'Legal basis',
    bases: {
      consent: 'Consent (section 19)',
      explicit_consent: 'Explicit consent for sensitive data (section 26)',
    },
    data: 'Sensitive data',
    noSensitive: 'None',
    retention: 'Retention',
    untilWithdrawn: 'Until consent is withdrawn',
    months: (n) => `${n} months from consent`,
    recipients: 'Recipients and transfers abroad (sections 28, 29)',
    none: 'None',
    abroad: 'transfer abroad',
    channels: 'Contact channels',
    refusals: 'Refusals of data subject requests',
    noRefusals: 'No request was refused.',
    kind: 'Request',
    refusedOn: 'Refused on',
    ground: 'Ground',
    reason: 'Reason',
    notFilled: 'Not filled in',
    liveSince: 'live since',
    version: 'version',
  },
  th: {
    title: 'บันทึกรายการกิจกรรมการประมวลผลข้อมูลส่วนบุคคล (มาตรา 39)',
    asOf: 'ณ สิ้นวันที่',
    generated: 'จัดทำเมื่อ',
    controller: 'ผู้ควบคุมข้อมูลส่วนบุคคล',
    name: 'ชื่อ',
    address: 'ที่อยู่',
    contact: 'ช่องทางติดต่อ',
    dpo: 'เจ้าหน้าที่คุ้มครองข้อมูลส่วนบุคคล',
    security: 'มาตรการรักษาความมั่นคงปลอดภัย (มาตรา 37(1))',
    purposes: 'วัตถุประสงค์ของการเก็บรวบรวมข้อมูลส่วนบุคคล',
    purpose: 'วัตถุประสงค์',
    basis: 'ฐานทางกฎหมาย',
    bases: {
      consent: 'ความยินยอม (มาตรา 19)',
      explicit_consent: 'ความยินยอมโดยชัดแจ้งสำหรับข้อมูลอ่อนไหว (มาตรา 26)',
    },
    data: 'ข้อมูลส่วนบุคคลที่มีความอ่อนไหว',
    noSensitive: 'ไม่มี',
    retention: 'ระยะเวลาการเก็บรักษา',
    untilWithdrawn: 'จนกว่าจะถอนความยินยอม',
    months: (n) => `${n} เดือนนับแต่ให้ความยินยอม`,
    recipients: 'ผู้รับข้อมูลและการส่งข้อมูลไปต่างประเทศ (มาตรา 28, 29)',
    none: 'ไม่มี',
    abroad: 'ส่งไปต่างประเทศ',
    channels: 'ช่องทางการติดต่อ',
    refusals: 'การปฏิเสธคำขอใช้สิทธิของเจ้าของข้อมูล',
    noRefusals: 'ไม่มีการปฏิเสธคำขอ',
    kind: 'คำขอ',
    refusedOn: 'ปฏิเสธเมื่อ',
    ground: 'เหตุตามกฎหมาย',
    reason: 'เหตุผล',
    notFilled: 'ยังไม่ได้กรอก',
    liveSince: 'มีผลตั้งแต่',
    version: 'ฉบับที่',
  },
};
