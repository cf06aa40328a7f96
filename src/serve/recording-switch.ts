// The recorder as the mock's control surface drives it (`/__mock/recording`, per key), and the
// header parameters the recorder keeps, read from the contract. Browser-safe.
import { resolveRef, type JsonObject } from '../contract/json-pointer.js';
import { HTTP_METHODS } from '../contract/operations.js';
import type { RecordingSwitch } from './control.js';
import { isRecordingName, type Recorder } from '../recording/recorder.js';
import { recordingToArazzo, type ArazzoTarget } from '../recording/to-arazzo.js';

/** Every header parameter name any operation of `document` declares (lower case), Authorization aside. */
export function headerParameterNames(document: JsonObject): Set<string> {
  const names = new Set<string>();
  for (const item of Object.values((document.paths ?? {}) as JsonObject)) {
    const pathItem = resolveRef(document, item);
    const operations = [pathItem, ...HTTP_METHODS.map((m) => pathItem?.[m] as JsonObject | undefined)];
    for (const operation of operations) {
      for (const raw of (operation?.parameters ?? []) as unknown[]) {
        const parameter = resolveRef(document, raw);
        if (parameter?.in === 'header' && String(parameter.name).toLowerCase() !== 'authorization') names.add(String(parameter.name).toLowerCase());
      }
    }
  }
  return names;
}

export function recordingSwitch(recorder: Recorder, target: ArazzoTarget): RecordingSwitch {
  const arazzo = (recording: ReturnType<Recorder['recording']>) => (recording ? recordingToArazzo(recording, target) : undefined);
  return {
    start(key, name) {
      if (name !== undefined && !isRecordingName(name)) return undefined;
      if (!recorder.start(key, name)) return undefined;
      const recording = recorder.recording(key)!;
      return { recording: recording.name, steps: recording.exchanges.length };
    },
    document: (key) => arazzo(recorder.recording(key)),
    stop: (key) => arazzo(recorder.stop(key)),
  };
}
