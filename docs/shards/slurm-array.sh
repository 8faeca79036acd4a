#!/bin/bash
# slowpoke batch on Slurm: one array task per shard.
#   sbatch slurm-array.sh /shared/project/recipe.json
# The recipe, its movies and its output_dir must be on storage every node mounts at the same
# path. The array runs 1-N (--shard counts from 1) and SHARDS is N, so resubmitting one index
# (sbatch --array=3 slurm-array.sh …) still runs shard 3 of 4.
#SBATCH --job-name=slowpoke-batch
#SBATCH --array=1-4
#SBATCH --cpus-per-task=4
#SBATCH --mem=4G
#SBATCH --output=slowpoke-batch-%A_%a.out

set -euo pipefail
RECIPE=${1:?usage: sbatch slurm-array.sh /path/to/recipe.json}
SHARDS=${SHARDS:-4}
exec slowpoke batch "$RECIPE" --shard "$SLURM_ARRAY_TASK_ID/$SHARDS" --jobs "${SLURM_CPUS_PER_TASK:-1}" --progress none
