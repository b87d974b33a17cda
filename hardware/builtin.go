package hardware

// Relative speeds (A100 = 1.0) are first-order defaults, to be overridden per
// workload class where a team has measurements:
//   - H100: 1.73, the mean of the MLPerf Training v3.0 H100/A100 ratios
//     (ResNet-50 1.8, 3D U-Net 1.4, DLRM 2.0; silverton_mlperf_v3).
//   - H200: as H100 (same compute, more memory; unverified).
//   - B200, Trainium, Trainium2, A10G, L40S: peak dense BF16 TFLOPS against
//     the A100's 312 (B200 scaled from H100's measured 1.73 by 2250/989).
//     Peak ratios overstate memory-bound types such as the L40S.
const (
	speedA100      = 1.0
	speedH100      = 1.73
	speedH200      = 1.73
	speedB200      = 3.94
	speedTrainium  = 0.61
	speedTrainium2 = 2.14
	speedA10G      = 0.22
	speedL40S      = 1.16
)

// builtinTypes is the catalog of AWS accelerated instances; figures collected
// 2026-11-30, us-east-1 Linux on-demand prices after the June 2025 cut.
func builtinTypes() []InstanceType {
	const (
		skypilotV8 = "price, vCPU, memory: skypilot-catalog v8 aws/vms.csv (post June-2025 price cut)"
		neuronTrn1 = "; accelerators: Neuron trn1 architecture page"
	)
	return []InstanceType{
		{Name: "p4d.24xlarge", Accelerator: "a100-40g", AcceleratorModel: "NVIDIA A100-SXM4-40GB", Accelerators: 8, AccelMemoryGiB: 40,
			Resource: ResourceNvidiaGPU, VCPUs: 96, MemoryGiB: 1152, PricePerHour: 21.957642, Priced: true, Speed: speedA100,
			Source: skypilotV8 + "; speed: reference accelerator"},
		{Name: "p4de.24xlarge", Accelerator: "a100-80g", AcceleratorModel: "NVIDIA A100-SXM4-80GB", Accelerators: 8, AccelMemoryGiB: 80,
			Resource: ResourceNvidiaGPU, VCPUs: 96, MemoryGiB: 1152, PricePerHour: 27.44705, Priced: true, Speed: speedA100,
			Source: skypilotV8 + "; speed: same compute as A100-40GB"},
		{Name: "p5.48xlarge", Accelerator: "h100", AcceleratorModel: "NVIDIA H100-SXM-80GB", Accelerators: 8, AccelMemoryGiB: 80,
			Resource: ResourceNvidiaGPU, VCPUs: 192, MemoryGiB: 2048, PricePerHour: 55.04, Priced: true, Speed: speedH100,
			Source: skypilotV8 + "; speed: mean MLPerf Training v3.0 H100/A100 ratio (silverton_mlperf_v3)"},
		{Name: "p5e.48xlarge", Accelerator: "h200", AcceleratorModel: "NVIDIA H200-141GB", Accelerators: 8, AccelMemoryGiB: 141,
			Resource: ResourceNvidiaGPU, VCPUs: 192, MemoryGiB: 2048, Speed: speedH200,
			Source: "no on-demand price published (Capacity Blocks only); shape: skypilot-catalog v8, torchx named resources; speed: as H100 (unverified)"},
		{Name: "p5en.48xlarge", Accelerator: "h200", AcceleratorModel: "NVIDIA H200-141GB", Accelerators: 8, AccelMemoryGiB: 141,
			Resource: ResourceNvidiaGPU, VCPUs: 192, MemoryGiB: 2048, PricePerHour: 63.296, Priced: true, Speed: speedH200,
			Source: skypilotV8 + " and dstack PR #4110; speed: as H100 (unverified)"},
		{Name: "p6-b200.48xlarge", Accelerator: "b200", AcceleratorModel: "NVIDIA B200", Accelerators: 8, AccelMemoryGiB: 179,
			Resource: ResourceNvidiaGPU, VCPUs: 192, MemoryGiB: 2048, PricePerHour: 113.9328, Priced: true, Speed: speedB200,
			Source: skypilotV8 + "; speed: H100 x 2250/989 peak BF16 TFLOPS (unverified)"},
		{Name: "trn1.32xlarge", Accelerator: "trainium1", AcceleratorModel: "AWS Trainium", Accelerators: 16, AccelMemoryGiB: 32,
			Resource: ResourceNeuron, VCPUs: 128, MemoryGiB: 512, PricePerHour: 21.50, Priced: true, Speed: speedTrainium,
			Source: skypilotV8 + neuronTrn1 + "; speed: 190/312 peak BF16 TFLOPS"},
		{Name: "trn1n.32xlarge", Accelerator: "trainium1", AcceleratorModel: "AWS Trainium", Accelerators: 16, AccelMemoryGiB: 32,
			Resource: ResourceNeuron, VCPUs: 128, MemoryGiB: 512, PricePerHour: 24.78, Priced: true, Speed: speedTrainium,
			Source: skypilotV8 + neuronTrn1 + "; speed: 190/312 peak BF16 TFLOPS"},
		{Name: "trn2.48xlarge", Accelerator: "trainium2", AcceleratorModel: "AWS Trainium2", Accelerators: 16, AccelMemoryGiB: 96,
			Resource: ResourceNeuron, VCPUs: 192, MemoryGiB: 2048, Speed: speedTrainium2,
			Source: "no on-demand price published (Capacity Blocks only); Neuron trn2 architecture page; memory per device unverified; speed: 667/312 peak BF16 TFLOPS"},
		{Name: "g5.48xlarge", Accelerator: "a10g", AcceleratorModel: "NVIDIA A10G", Accelerators: 8, AccelMemoryGiB: 24,
			Resource: ResourceNvidiaGPU, VCPUs: 192, MemoryGiB: 768, PricePerHour: 16.288, Priced: true, Speed: speedA10G,
			Source: skypilotV8 + "; speed: ~70/312 peak BF16 TFLOPS (approximate)"},
		{Name: "g6e.48xlarge", Accelerator: "l40s", AcceleratorModel: "NVIDIA L40S", Accelerators: 8, AccelMemoryGiB: 48,
			Resource: ResourceNvidiaGPU, VCPUs: 192, MemoryGiB: 1536, PricePerHour: 30.13118, Priced: true, Speed: speedL40S,
			Source: skypilotV8 + "; speed: 362/312 peak BF16 TFLOPS (optimistic for memory-bound training)"},
	}
}
