// Internal to the FlowInterpolation target: the resolution the pair's flow is found at.
#pragma once

namespace slowpoke {

/// What a picture of `width` x `height` is divided by (in both directions) for its flow at
/// `quality` (SP_FLOW_QUALITY_FAST or SP_FLOW_QUALITY_HIGH). See FlowResolution.cpp.
int flowDivisor(int width, int height, int quality);

}
