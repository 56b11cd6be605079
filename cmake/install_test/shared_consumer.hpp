#pragma once
// The one function of the shared-library consumer (shared_consumer.cpp).
int libra_shared_consumer_run(int argc, char* argv[]);
