module schedlab/bench

go 1.19
