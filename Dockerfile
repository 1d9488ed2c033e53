# Shelf API and workers. The node package in dependencies brings Node 24 into node_modules,
# so the image only needs a Node able to run npm.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY src ./src
COPY workers ./workers
COPY migrations ./migrations
COPY scripts ./scripts
ENV HOST=0.0.0.0 PORT=8080 STORAGE_DIR=/data/files
VOLUME /data
EXPOSE 8080
# `npm run serve` skips the local-services helper of `npm start`: compose provides them
CMD ["npm", "run", "serve"]
