// Slice 3 of the conformance suite (see slices.ts). Run through `npm run conformance`.
import { defineConformanceSlice } from './define.js';
import { SLICE_COUNT } from './slices.js';

defineConformanceSlice(3, SLICE_COUNT);
