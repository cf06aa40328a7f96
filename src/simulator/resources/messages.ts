// Messages, groups and typing (parts 2, 4.5, 6, 7, 8): a send answers the record it stored, the
// list answers the 100 newest with its filters, each message-send error of part 7 comes from its
// cause, the sending limits of part 8 hold per number, and a sent message reports its delivery
// (`message.status_changed`, part 6). Inbound traffic (the test helpers) is recorded here too, so
// that a reply lifts the limits that wait for one.
import type { RequestContext, ResourceModule, RuleContext } from '../context.js';
import { dict, HISTORY_LIMIT, LIST_LIMIT, trimOldest, type AccountState } from '../state.js';
import type { GroupRecord, MediaRecord, MessageChannel, MessageRecord, NumberRecord } from '../records.js';
import type { JsonObject, SimResponse } from '../types.js';
import { findNumber, isWalletGated } from './numbers.js';
import { recordTraffic, utcDay } from './usage.js';

/** WhatsApp: the fixed minimum gap between consecutive messages of one number (part 8). */
const WHATSAPP_GAP_MS = 1000;
/** WhatsApp: consecutive messages to one recipient with no reply (part 8). */
const WHATSAPP_UNANSWERED = 3;
/** iMessage: new conversations per number per day (part 8). */
const IMESSAGE_NEW_PER_DAY = 50;
/** Simulated ms from a send to its delivery report at the default pace (issue 11: within about 2 s). */
const DELIVERY_DELAY_MS = 1000;

/** What this module keeps per account in `extra.messages`. */
interface MessagingState {
  /** Number id → simulated ms of its last WhatsApp send. */
  whatsappLastAt: Record<string, number>;
  /** `<number id> <recipient or group id>` → consecutive WhatsApp messages with no reply. */
  unanswered: Record<string, number>;
  /** Number id → the UTC day and how many new iMessage conversations it started that day. */
  imessageNew: Record<string, { day: string; count: number }>;
  /** Number id → the recipients it has a conversation with (messaged, or who messaged it). */
  contacts: Record<string, Record<string, true>>;
  /** Group id → the account's lines in it (number ids). */
  groupLines: Record<string, string[]>;
}

export function messagingState(account: AccountState): MessagingState {
  const extra = (account.extra.messages ??= dict()) as Record<string, unknown>;
  for (const key of ['whatsappLastAt', 'unanswered', 'imessageNew', 'contacts', 'groupLines'] satisfies Array<keyof MessagingState>) extra[key] ??= dict();
  return extra as unknown as MessagingState;
}

/** Where a message stands and what the service knows of it but never shows (part 2: the status field is not shown). */
interface MessageMeta {
  direction: 'inbound' | 'outbound';
  createdAt: string;
  /** Delivery state (spec/states/message-delivery.yaml), outbound only. */
  delivery?: string;
}

/** A new message record on `line` (in `group`, when given), without media. */
function newMessage(ctx: RuleContext, line: NumberRecord, group: GroupRecord | undefined, fields: Pick<MessageRecord, 'channel' | 'from' | 'to' | 'body' | 'replyToId' | 'source'>): MessageRecord {
  const { channel, from, to, body, replyToId, source } = fields;
  return { id: ctx.ids.next('msg_'), phoneNumberId: line.id, groupId: group ? group.id : null, channel, from, to, body, media: [], replyToId, reaction: null, source };
}

/** Appends a message, newest last, keeping the newest HISTORY_LIMIT and forgetting the dropped ones' meta. */
export function storeMessage(account: AccountState, record: MessageRecord, meta: MessageMeta): void {
  account.messages.push(record);
  account.meta[record.id] = meta as unknown as JsonObject;
  for (const dropped of trimOldest(account.messages, HISTORY_LIMIT)) delete account.meta[dropped.id];
}

function messageDirection(account: AccountState, message: MessageRecord): string {
  const meta = account.meta[message.id] as MessageMeta | undefined;
  if (meta?.direction) return meta.direction;
  // A seeded record: outbound when it was sent from one of the account's numbers.
  return account.numbers.some((number) => number.number === message.from) ? 'outbound' : 'inbound';
}

function messageTime(account: AccountState, message: MessageRecord): number {
  const meta = account.meta[message.id] as MessageMeta | undefined;
  // A seeded record carries no time (part 2 shows none): it is as old as the account.
  return Date.parse(meta?.createdAt ?? account.createdAt);
}

// ---------------------------------------------------------------------------------------------
// Channels and attachments

/** The account's lines in a group: those recorded for it, else the lines its seeded messages were on. */
export function groupLines(account: AccountState, groupId: string): string[] {
  return messagingState(account).groupLines[groupId] ?? [...new Set(account.messages.filter((m) => m.groupId === groupId).map((m) => m.phoneNumberId))];
}

/** The channels a number carries now (WhatsApp only once it is ready, part 3). */
function channelReady(number: NumberRecord, channel: string): boolean {
  if (channel === 'whatsapp') return number.whatsapp?.status === 'ready';
  return number.capabilities.includes(channel);
}

function defaultChannel(number: NumberRecord): MessageChannel {
  if (number.capabilities.includes('imessage')) return 'imessage';
  if (number.capabilities.includes('sms') || !number.whatsapp) return 'sms';
  return 'whatsapp';
}

const EXTENSION_TYPES: Record<string, string> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic',
  mp4: 'video/mp4', mov: 'video/quicktime', '3gp': 'video/3gpp', webm: 'video/webm',
  mp3: 'audio/mpeg', m4a: 'audio/mp4', aac: 'audio/aac', ogg: 'audio/ogg', opus: 'audio/opus', wav: 'audio/wav', amr: 'audio/amr',
  pdf: 'application/pdf', txt: 'text/plain', csv: 'text/csv', vcf: 'text/vcard', doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

interface Attachment {
  url: string;
  contentType: string | undefined;
}

/** The attachments of a send, across `media` (shape not shown: a URL string or `{url, contentType}`) and `mediaUrls`. */
function attachments(body: JsonObject): Attachment[] {
  const list: Attachment[] = [];
  for (const item of Array.isArray(body.media) ? body.media : []) {
    if (typeof item === 'string') list.push({ url: item, contentType: undefined });
    else if (item && typeof item === 'object') {
      const url = item.url ?? item.originalUrl;
      list.push({ url: typeof url === 'string' ? url : '', contentType: typeof item.contentType === 'string' ? item.contentType : undefined });
    }
  }
  for (const url of Array.isArray(body.mediaUrls) ? body.mediaUrls : []) if (typeof url === 'string') list.push({ url, contentType: undefined });
  return list.map((a) => ({ ...a, contentType: a.contentType ?? typeByExtension(a.url) }));
}

function extensionOf(url: string): string | undefined {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // not a URL: read it as a path
  }
  return /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
}

function typeByExtension(url: string): string | undefined {
  const extension = extensionOf(url);
  return extension ? EXTENSION_TYPES[extension] : undefined;
}

/**
 * Audio or a document, which WhatsApp sends without a body (part 4.5); an undecidable item (no
 * type given, none known for its extension) is given the benefit of the doubt.
 */
function isAudioOrDocument(attachment: Attachment): boolean {
  const type = attachment.contentType || typeByExtension(attachment.url);
  return type !== undefined && !/^(image|video)\//i.test(type);
}

/** The stored media items: served by the service at a URL shaped like the contract's example's. */
function mediaItems(ctx: RuleContext, list: Attachment[]): MediaRecord[] {
  if (list.length === 0) return [];
  const example = (ctx.contract.componentExample('mmsWithImage') as MessageRecord).media[0]!;
  const base = example.url.replace(/[^/]+$/, '');
  return list.map((attachment) => {
    const id = ctx.ids.next('med_');
    const extension = extensionOf(attachment.url);
    return {
      id,
      url: `${base}${id}${extension ? `.${extension}` : ''}`,
      contentType: attachment.contentType ?? 'application/octet-stream',
      originalUrl: attachment.url,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Sending

const present = (value: unknown): boolean => value !== undefined && value !== null;

/** Part 7's "exactly one of" messages, which win over the contract gate's generic oneOf violation. */
function sendPrecheck(ctx: RequestContext<'sendMessage'>): SimResponse | undefined {
  // Only a JSON object has fields to count: malformed JSON, an oversized or a missing body get the gate's answer.
  const raw = ctx.request.body;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const body = ctx.body;
  if (present(body.to) === present(body.groupId)) return ctx.documented(400, 'toXorGroupId');
  if (present(body.to) && present(body.fromNumber) === present(body.fromNumberId)) return ctx.documented(400, 'fromNumberXorId');
  return undefined;
}

function sendMessage(ctx: RequestContext<'sendMessage'>): SimResponse {
  const { account, body } = ctx;
  const state = messagingState(account);
  let number: NumberRecord | undefined;
  let channel: MessageChannel;
  let group: GroupRecord | undefined;

  if (present(body.groupId)) {
    group = account.groups.find((g) => g.id === body.groupId);
    if (!group) return ctx.documented(400, 'noSuchGroup');
    if (present(body.channel) && body.channel !== group.channel) return ctx.documented(400, 'groupChannelMismatch');
    // Every group message travels on WhatsApp (part 6); a group of another channel cannot carry a send.
    if (group.channel !== 'whatsapp') return ctx.documented(400, 'groupsUnsupportedOnChannel');
    channel = 'whatsapp';
    const lines = groupLines(account, group.id);
    if (present(body.fromNumber) || present(body.fromNumberId)) {
      number = findNumber(account, { id: body.fromNumberId ?? undefined, number: body.fromNumber ?? undefined });
      if (!number) return ctx.documented(400, 'unknownFromNumber');
      if (!lines.includes(number.id)) return ctx.documented(400, 'groupLineMismatch');
    } else {
      number = lines.map((id) => findNumber(account, { id })).find((n) => n !== undefined);
      // The group's line is not (or no longer) one of the account's WhatsApp lines.
      if (!number) return ctx.documented(400, 'whatsappNotConnected');
    }
  } else {
    number = findNumber(account, { id: body.fromNumberId ?? undefined, number: body.fromNumber ?? undefined });
    if (!number) return ctx.documented(400, 'unknownFromNumber');
    channel = present(body.channel) ? (String(body.channel) as MessageChannel) : defaultChannel(number);
  }

  if (!channelReady(number, channel)) return ctx.documented(400, channel === 'whatsapp' ? 'whatsappNotConnected' : 'channelNotOnNumber');

  const list = attachments(body);
  const text = typeof body.body === 'string' ? body.body : '';
  if (channel === 'whatsapp') {
    if (list.length > 1) return ctx.documented(400, 'whatsappOneAttachment');
    if (list.length === 1 && text !== '' && isAudioOrDocument(list[0]!)) return ctx.documented(400, 'whatsappBodyWithMedia');
  }

  // A threaded reply to a message that came over the SMS fallback has nothing to attach to (part 7).
  const replyToId = typeof body.replyToId === 'string' ? body.replyToId : null;
  const target = replyToId === null ? undefined : account.messages.findLast((m) => m.id === replyToId);
  const line = target ? findNumber(account, { id: target.phoneNumberId }) : undefined;
  if (target && target.channel === 'sms' && messageDirection(account, target) === 'inbound' && line && channelReady(line, 'imessage')) {
    return ctx.documented(400, 'smsFallbackThreadReply');
  }

  const recipient = group ? undefined : String(body.to);
  const contacts = (state.contacts[number.id] ??= dict());
  // Carrier and registry outcomes, by documented test value (spec/test-values.yaml); on WhatsApp,
  // limited access still lets the number reply to someone who messaged it (part 7).
  const onWhatsapp = channel === 'whatsapp' && recipient !== undefined ? ['recipientNotOnWhatsapp', ...(contacts[recipient] ? [] : ['whatsappLimited'])] : [];
  const refusal = ctx.testValue(['messageUnsupportedRegion', ...onWhatsapp]);
  if (refusal) return refusal;

  // Wallet gating (parts 3 and 7): a PAYG number with the wallet at or below zero.
  if (isWalletGated(account, number)) return ctx.documented(402);

  // Sending limits (part 8).
  const unanswered = `${number.id} ${group ? String(group.id) : recipient!}`;
  if (channel === 'whatsapp') {
    const last = state.whatsappLastAt[number.id];
    if (last !== undefined && ctx.now - last < WHATSAPP_GAP_MS) {
      const seconds = Math.max(1, Math.ceil((WHATSAPP_GAP_MS - (ctx.now - last)) / 1000));
      return ctx.documented(429, 'whatsappSpacing', { 'Retry-After': String(seconds) });
    }
    if ((state.unanswered[unanswered] ?? 0) >= WHATSAPP_UNANSWERED) return ctx.documented(429, 'whatsappUnanswered');
  }
  const isNewImessageConversation = channel === 'imessage' && recipient !== undefined && !contacts[recipient];
  if (isNewImessageConversation) {
    const today = utcDay(ctx.now);
    const count = state.imessageNew[number.id]?.day === today ? state.imessageNew[number.id]!.count : 0;
    if (count >= IMESSAGE_NEW_PER_DAY) return ctx.documented(429, 'imessageNewConversations');
    state.imessageNew[number.id] = { day: today, count: count + 1 };
  }

  const record = newMessage(ctx, number, group, { channel, from: number.number, to: group ? null : recipient!, body: text, replyToId, source: 'external' });
  record.media = mediaItems(ctx, list);
  const delivery = deliveryStates(ctx);
  storeMessage(account, record, { direction: 'outbound', createdAt: ctx.nowIso, delivery: delivery.initial });
  if (recipient !== undefined) contacts[recipient] = true;
  if (channel === 'whatsapp') {
    state.whatsappLastAt[number.id] = ctx.now;
    state.unanswered[unanswered] = (state.unanswered[unanswered] ?? 0) + 1;
  }
  ctx.schedule(account, 'message.delivery', record.id, DELIVERY_DELAY_MS / ctx.options.pace, { to: delivery.delivered });
  recordTraffic(ctx, account, 'message', { direction: 'outbound', record });
  return ctx.json(201, record);
}

/** The delivery states, read from `x-state-machines.messageDelivery`: where a send starts, and what the carrier delivering leads to. */
function deliveryStates(ctx: RuleContext): { initial: string; delivered: string } {
  const transitions = (ctx.contract.stateMachine('messageDelivery')?.transitions ?? []) as JsonObject[];
  const first = transitions[0];
  if (!first) throw new Error('The contract has no messageDelivery state machine (x-state-machines).');
  return { initial: String(first.from), delivered: String(first.to) };
}

/** A step of delivery: the message enters the next state and `message.status_changed` reports it (part 6). */
function deliveryStep(ctx: RuleContext, account: AccountState, job: { ref: string; data?: JsonObject }): void {
  // A stored message has its meta until it leaves the history (storeMessage), so the meta alone
  // says whether the message is still there, without a search of the history.
  const meta = account.meta[job.ref] as MessageMeta | undefined;
  if (!meta || !job.data?.to) return;
  meta.delivery = String(job.data.to);
  // The data fields are not shown (part 6); the shape of the contract's `messageStatusDelivered` example is kept.
  ctx.emit(account, 'message.status_changed', { messageId: job.ref, status: meta.delivery }, { id: job.ref, type: 'message', url: null });
}

// ---------------------------------------------------------------------------------------------
// Inbound traffic (the test helpers, part 4.5)

/**
 * Records an inbound message on the account's line `to` (or on each of its lines in `groupId`)
 * and emits `message.received` once per line (part 6). A reply lifts the WhatsApp unanswered
 * limit and makes the sender a known contact (part 8).
 */
export function receiveMessage(
  ctx: RuleContext,
  account: AccountState,
  input: { line: NumberRecord; from: string; body: string; channel?: MessageChannel; group?: GroupRecord; source: 'internal' | 'external' },
): MessageRecord[] {
  const state = messagingState(account);
  const inGroup = input.group ? groupLines(account, input.group.id).flatMap((id) => findNumber(account, { id }) ?? []) : [];
  const lines = inGroup.length > 0 ? inGroup : [input.line];
  const channel = input.group ? 'whatsapp' : (input.channel ?? defaultChannel(input.line));
  const records: MessageRecord[] = [];
  for (const line of lines) {
    const record = newMessage(ctx, line, input.group, { channel, from: input.from, to: input.group ? null : line.number, body: input.body, replyToId: null, source: input.source });
    storeMessage(account, record, { direction: 'inbound', createdAt: ctx.nowIso });
    (state.contacts[line.id] ??= dict())[input.from] = true;
    delete state.unanswered[`${line.id} ${input.group ? input.group.id : input.from}`];
    const { id, phoneNumberId: _line, ...data } = record;
    ctx.emit(account, 'message.received', { messageId: id, ...data }, { id, type: 'message', url: null });
    recordTraffic(ctx, account, 'message', { direction: 'inbound', record });
    records.push(record);
  }
  return records;
}

// ---------------------------------------------------------------------------------------------
// Typing (part 4.5): the channel errors of a send, free, nothing on a standard SMS number.

function setTypingIndicator(ctx: RequestContext<'setTypingIndicator'>): SimResponse {
  const { account, body } = ctx;
  const number = findNumber(account, { number: body.fromNumber });
  if (!number) return ctx.documented(400, 'unknownFromNumber');
  // The typing channel: the one named, else the richest the number carries now.
  const channel = present(body.channel) ? String(body.channel) : (['imessage', 'whatsapp'].find((rich) => channelReady(number, rich)) ?? 'sms');
  if (channel === 'whatsapp') {
    if (!channelReady(number, 'whatsapp')) return ctx.documented(400, 'whatsappNotConnected');
    // Limited access still lets the number type to someone who messaged it (part 7).
    const known = messagingState(account).contacts[number.id]?.[String(body.toNumber)];
    const refusal = ctx.testValue(['typingWhatsappChannelDown', ...(known ? [] : ['typingWhatsappLimited'])]);
    if (refusal) return refusal;
  }
  // A standard SMS number silently does nothing; there is nothing to keep for an indicator.
  return ctx.documented(200, 'done');
}

// ---------------------------------------------------------------------------------------------
// Lists

function listMessages(ctx: RequestContext<'listMessages'>): SimResponse {
  const { account, request } = ctx;
  const since = request.query.get('since');
  const sinceMs = since === null ? undefined : Date.parse(since);
  const direction = request.query.get('direction');
  const groupId = request.query.get('groupId');
  const answer: MessageRecord[] = [];
  for (let i = account.messages.length - 1; i >= 0 && answer.length < LIST_LIMIT; i--) {
    const message = account.messages[i]!;
    if (sinceMs !== undefined && !(messageTime(account, message) > sinceMs)) continue;
    if (direction !== null && messageDirection(account, message) !== direction) continue;
    if (groupId !== null && message.groupId !== groupId) continue;
    answer.push(message);
  }
  return ctx.json(200, answer);
}

/** A `since` that is not a timestamp: the documented `invalidSince` rather than the gate's wording. */
function listPrecheck(ctx: RequestContext<'listMessages'>): SimResponse | undefined {
  const since = ctx.request.query.get('since');
  const gateRefused = ctx.request.violations.some((verdict) => verdict.in === 'query' && verdict.parameter === 'since');
  if (gateRefused || (since !== null && Number.isNaN(Date.parse(since)))) return ctx.documented(400, 'invalidSince');
  return undefined;
}

export const messagesModule: ResourceModule = {
  name: 'messages',
  parts: '2, 4.5, 6, 7, 8',
  reads: ['listMessages', 'listGroups'],
  handlers: {
    sendMessage,
    listMessages,
    setTypingIndicator,
    listGroups: (ctx) => ctx.json(200, ctx.account.groups),
  },
  precheck: {
    sendMessage: sendPrecheck,
    listMessages: listPrecheck,
  },
  processes: {
    'message.delivery': deliveryStep,
  },
  seed(_ctx, account) {
    // The account's lines in each seeded group: the lines its seeded messages were on.
    for (const group of account.groups) messagingState(account).groupLines[group.id] = groupLines(account, group.id);
  },
};
