// Slice 1 of the conformance suite (see slices.ts). Run through `npm run conformance`.
import { defineConformanceSlice } from './define.js';
import { SLICE_COUNT } from './slices.js';

defineConformanceSlice(1, SLICE_COUNT);
