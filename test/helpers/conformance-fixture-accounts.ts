// The fixture accounts a team sets aside for the conformance suite (issue 38), as seeds of the
// package's mock under --strict-keys: one on an empty wallet holding a pay-as-you-go line not yet
// registered for 10DLC and a FIXED line, and a free account (never paid) with a line. Beside them,
// accounts that are not what the options say: a funded wallet, and an account that was topped up.
export const EMPTY_WALLET_KEY = 'sk_live_CONFORMANCEemptyWALLETkey5a4b3c2d';
export const FREE_ACCOUNT_KEY = 'sk_live_CONFORMANCEfreeACCOUNTkey1f2e3d4c';
export const FUNDED_KEY = 'sk_live_CONFORMANCEfundedWALLETkey9a8b7c6';
export const TOPPED_UP_KEY = 'sk_live_CONFORMANCEtoppedUPaccount2b3c4d5';

export const line = (id: string, number: string, billingMode: 'PAYG' | 'FIXED') => ({
  id,
  number,
  nickname: id,
  createdAt: '2026-11-21T09:30:00Z',
  capabilities: ['sms', 'voice'],
  maxCallDurationSeconds: null,
  billingMode,
  tenDlc: { status: 'not_registered', reason: null },
  inboundPrompt: 'Hello.',
});

const NOTHING = { messages: [], calls: [], groups: [], webhooks: [], paymentMethods: [], deposits: [], activity: [], invoices: {}, tenDlc: {}, subscription: null };

export const EMPTY_WALLET_SEED = { ...NOTHING, keys: [EMPTY_WALLET_KEY], paid: true, balance: 0, numbers: [line('pn_emptywallet0payg', '+13125550121', 'PAYG'), line('pn_emptywalletfixed', '+13125550122', 'FIXED')] };
export const FREE_ACCOUNT_SEED = { ...NOTHING, keys: [FREE_ACCOUNT_KEY], paid: false, balance: 0, account: { maxCallDurationSeconds: null }, numbers: [line('pn_freeaccount0line', '+13125550131', 'PAYG')] };
export const FUNDED_SEED = { ...NOTHING, keys: [FUNDED_KEY], paid: true, balance: 20, numbers: [line('pn_fundedwallet0ln', '+13125550141', 'PAYG')] };
export const TOPPED_UP_SEED = {
  ...NOTHING,
  keys: [TOPPED_UP_KEY],
  paid: true,
  balance: 5,
  deposits: [{ invoiceId: 'in_conformancetopup01', amount: 10, createdAt: '2026-11-02T15:10:00Z' }],
  invoices: { in_conformancetopup01: { invoicePdf: 'https://files.example.com/i.pdf', hostedInvoiceUrl: 'https://pay.example.com/i' } },
  numbers: [line('pn_toppedup00line0', '+13125550151', 'PAYG')],
};

/** Both fixture options' settings, as a run has them. */
export const FIXTURE_KEYS = { emptyWalletKey: EMPTY_WALLET_KEY, freeAccountKey: FREE_ACCOUNT_KEY };
