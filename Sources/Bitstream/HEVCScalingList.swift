/// `scaling_list_data()` (ITU-T H.265 7.3.4), in an SPS or PPS: read past, with its ranges;
/// nothing a slice header's layout depends on.
enum HEVCScalingList {
    static func skip(_ r: inout SyntaxReader) throws {
        for sizeID in 0..<4 {
            for matrixID in stride(from: 0, to: 6, by: sizeID == 3 ? 3 : 1) {
                guard try r.flag("scaling_list_pred_mode_flag") else {
                    _ = try r.ue("scaling_list_pred_matrix_id_delta", in: 0...(sizeID == 3 ? matrixID / 3 : matrixID))
                    continue
                }
                if sizeID > 1 { _ = try r.se("scaling_list_dc_coef_minus8", in: -7...247) }
                for _ in 0..<min(64, 1 << (4 + (sizeID << 1))) { _ = try r.se("scaling_list_delta_coef", in: -128...127) }
            }
        }
    }
}
